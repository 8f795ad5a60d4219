//! `tirproof run FILE`: execute a function on a registered engine (`tirproof_exec::engines`):
//! the reference interpreter or, with `--engine ptx`, as PTX on the emulator (the selected
//! function lowered once, as `tirproof ptx` lowers it, a failure rendered against the source),
//! or with `--engine gpu`, that PTX on the GPU (which decides its own schedule, so
//! `--schedule` is refused with it),
//! optionally against a reference program on the same inputs (always run by the
//! interpreter); `tirproof run --ptx FILE.ptx` runs PTX text (`super::ptx::run_text`). Without
//! a GPU, `--engine gpu` is an error that starts with "no GPU:" and says why (exit 2).
//!
//! Every `--arg` names a scalar parameter of the function and fits its type; every `--input`
//! names a buffer parameter and is read no further than the buffer's size. With `--reference`,
//! success is one line (the outputs only with `--print`) and each fault is printed once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::builder::TypedValueParser;
use tirproof::findings::{Finding, FormatArgs, Location, Report, Rule};
use tirproof::outln;
use tirproof::source::Source;
use tirproof::source::STDIN_PATH;
use tirproof_exec::{
    compare_runs, ConfigRefused, Difference, Engine, EngineError, EngineName, Execution, Interpreter, Prelowered, Side,
    Subject,
};
use tirproof_fuzz::publish::{is_plain_name, publish, Layout};
use tirproof_interp::{random_inputs, run, Inputs, Outcome, RunConfig, RunResult, ScalarValue, Schedule, Tensor};
use tirproof_ir::int_arith::wrap;
use tirproof_ir::{IRModule, PrimFunc};
use tirproof_ptx::LoweredKernel;

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file (`-`: standard input).
    #[arg(required_unless_present = "ptx")]
    file: Option<PathBuf>,
    /// What runs the program.
    #[arg(long, default_value = "interpreter", value_parser = engine_names())]
    engine: EngineName,
    #[command(flatten)]
    ptx: super::ptx::TextRunArgs,
    /// The function to run (default: the only one, or `main`).
    #[arg(long)]
    func: Option<String>,
    /// When async groups complete: lazy (only when a wait forces them), eager (at commit),
    /// or random:SEED (any time after commit).
    #[arg(long, default_value = "lazy")]
    schedule: Schedule,
    /// A buffer parameter's contents from a .npy file (repeatable).
    #[arg(long = "input", value_name = "NAME=PATH")]
    inputs: Vec<String>,
    /// A scalar parameter's value (repeatable); unset scalars are seeded random.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
    /// Seed for random inputs and for the order of threads between barriers (default 0); with
    /// --ptx, for the order of threads only (without it, a block's threads run in order).
    #[arg(long)]
    seed: Option<u64>,
    /// Write every output buffer as DIR/NAME.npy instead of printing it.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Run this program on the same inputs too; succeed only if neither faults and all outputs
    /// are bitwise equal.
    #[arg(long, value_name = "ORIGINAL")]
    reference: Option<PathBuf>,
    /// With --reference, print the outputs too (without it, success is one line).
    #[arg(long, requires = "reference")]
    print: bool,
    /// Statements (PTX instructions with --ptx) to execute before giving up (a fault).
    #[arg(long, default_value_t = 100_000_000)]
    fuel: u64,
    #[command(flatten)]
    format: FormatArgs,
}

pub fn run_command(args: &Args) -> anyhow::Result<ExitCode> {
    let file = match (&args.ptx.ptx, &args.file) {
        (Some(ptx), _) => return super::ptx::run_text(&text_run(args, ptx)),
        (None, Some(file)) => file,
        (None, None) => bail!("give a TVMScript FILE, or --ptx FILE.ptx"),
    };
    if let Some(flag) = args.ptx.launch_flag() {
        bail!("{flag} shapes the launch of PTX text: it needs --ptx FILE.ptx");
    }
    if args.reference.as_deref() == Some(Path::new(STDIN_PATH)) && file == Path::new(STDIN_PATH) {
        bail!("only one of FILE and --reference can be `-` (standard input)");
    }
    let mut found = Report::new("run");
    let Some((src, module)) = super::load_checked(file, &mut found) else { return found.finish(args.format.format()) };
    let func = select(&module, args.func.as_deref())?;
    let scalars = parse_scalars(func, &args.args)?;
    let seed = args.seed.unwrap_or(0);
    let mut inputs = random_inputs(func, seed, &scalars).map_err(|e| anyhow!("{e}"))?;
    read_inputs(&args.inputs, &mut inputs)?;
    // Said with the run's outcome (its last line on success, after the fault otherwise), so
    // that a run with --reference still succeeds in one line.
    let replay = replay_line(seed, &scalars, &inputs);
    // The interpreter and the emulator run the threads of a block in the seed's order (the same
    // permutations); the GPU runs them in its own order, compared with the interpreter's run in
    // order.
    let registered = args.engine.engine();
    let requested = RunConfig { schedule: args.schedule, thread_order_seed: Some(seed), fuel: args.fuel };
    let config = registered.configure(requested).map_err(|ConfigRefused::Schedule(why)| {
        anyhow!("--schedule {}: {why}; --engine {} runs without --schedule", args.schedule, args.engine)
    })?;
    if let Some(why) = registered.unavailable() {
        bail!("{why}");
    }
    // A PTX engine runs the one lowering of the run; its failure is rendered against the source.
    let prelowered = match registered.ptx_target() {
        Some(arch) => match super::ptx::lower_one(&src, super::ptx::source_file(file, &src), func, arch) {
            Ok(kernel) => Some(Prelowered { kernel, engine: registered }),
            Err(rendered) => {
                eprintln!("{rendered}");
                found.add(Finding::new(Rule::LoweringRefused, Location::file(&src.name), rendered.trim_end()));
                return found.finish(args.format.format());
            }
        },
        None => None,
    };
    let engine: &dyn Engine = match &prelowered {
        Some(prelowered) => prelowered,
        None => registered,
    };
    match (&args.reference, args.engine) {
        (Some(reference), _) => {
            run_against(args, reference, Subject { engine, func }, (&inputs, &config), &src, &replay, &mut found)?;
        }
        // The interpreter's own report counts the statements it executed.
        (None, EngineName::Interpreter) => {
            let result = run(func, &inputs, &config).map_err(|e| anyhow!("{e}"))?;
            report(args, &result, &src, &replay, &mut found)?;
        }
        (None, _) => {
            let lowered = prelowered.as_ref().map(|p| &p.kernel);
            let execution = engine.run(func, &inputs, &config);
            report_execution(args, &src, lowered, engine.name(), execution, &replay, &mut found)?;
        }
    }
    found.finish(args.format.format())
}

/// The line that says what the seed chose and how to run the same again: the scalars it drew
/// (those no `--arg` gave) and the flags that replay them, `--seed S --arg n=46`.
fn replay_line(seed: u64, given: &BTreeMap<String, ScalarValue>, inputs: &Inputs) -> String {
    let drawn: Vec<(&String, &ScalarValue)> =
        inputs.scalars.iter().filter(|(name, _)| !given.contains_key(*name)).collect();
    let chosen = drawn.iter().map(|(name, value)| format!("{name} = {value}")).collect::<Vec<_>>().join(", ");
    let flags: String = drawn.iter().map(|(name, value)| format!(" --arg {name}={value}")).collect();
    let chosen = if chosen.is_empty() { String::new() } else { format!("; random scalars: {chosen}") };
    format!("seed {seed} (random inputs, thread order){chosen}; replay: --seed {seed}{flags}")
}

/// The `--engine` values: the registered engines, each with its summary as help.
fn engine_names() -> impl TypedValueParser<Value = EngineName> {
    let values =
        EngineName::ALL.map(|name| clap::builder::PossibleValue::new(name.key()).help(name.registration().summary));
    clap::builder::PossibleValuesParser::new(values).try_map(|key| key.parse::<EngineName>())
}

/// The flags `tirproof run --ptx` uses.
fn text_run<'a>(args: &'a Args, ptx: &'a Path) -> super::ptx::TextRun<'a> {
    super::ptx::TextRun {
        file: ptx,
        launch: &args.ptx,
        schedule: args.schedule,
        thread_order_seed: args.seed,
        fuel: args.fuel,
        inputs: &args.inputs,
        args: &args.args,
        output: args.output.as_deref(),
        format: args.format.format(),
    }
}

/// The `NAME=VALUE`s of a repeatable `flag`, each split at its first `=`; a name given twice
/// is a usage error (no value silently wins over another).
pub(super) fn name_values<'a>(flag: &str, specs: &'a [String]) -> anyhow::Result<BTreeMap<&'a str, &'a str>> {
    let mut values = BTreeMap::new();
    for spec in specs {
        let (name, value) = spec.split_once('=').ok_or_else(|| anyhow!("{flag} `{spec}` is not NAME=VALUE"))?;
        if values.insert(name, value).is_some() {
            bail!("{flag} {name} is given twice; give each name once");
        }
    }
    Ok(values)
}

fn select<'m>(module: &'m IRModule, name: Option<&str>) -> anyhow::Result<&'m PrimFunc> {
    let found = match name {
        Some(n) => module.get(n),
        None if module.functions.len() == 1 => module.functions.first(),
        None => module.get("main"),
    };
    found.ok_or_else(|| {
        let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
        anyhow!("no function {} (the module has: {}); choose one with --func", name.unwrap_or("main"), names.join(", "))
    })
}

/// The `--arg NAME=VALUE` values, each checked against the scalar parameter it names: the
/// name must be one, and the value must fit its type (an integer in the type's range, a
/// number for a float, `true`/`false` for a bool), never wrapped or ignored.
fn parse_scalars(func: &PrimFunc, args: &[String]) -> anyhow::Result<BTreeMap<String, ScalarValue>> {
    name_values("--arg", args)?
        .into_iter()
        .map(|(name, value)| {
            let Some(param) = func.scalar_params().find(|p| p.name() == name) else {
                let known: Vec<&str> = func.scalar_params().map(|p| p.name()).collect();
                let known = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
                bail!(
                    "--arg {name}: `{}` has no scalar parameter `{name}` (its scalar parameters: {known})",
                    func.name
                );
            };
            let dtype = param.dtype();
            let v = match value {
                "true" | "True" if dtype.is_bool() => ScalarValue::Bool(true),
                "false" | "False" if dtype.is_bool() => ScalarValue::Bool(false),
                _ if dtype.is_bool() => bail!("--arg {name}: `{value}` is not a bool (the parameter is {dtype})"),
                _ if dtype.is_integer() => {
                    let int: i64 =
                        value.parse().map_err(|_| anyhow!("--arg {name}: `{value}` is not an integer ({dtype})"))?;
                    if wrap(int, dtype) != Some(int) {
                        bail!("--arg {name}: {int} is out of the range of the parameter's type {dtype}");
                    }
                    ScalarValue::Int(int)
                }
                _ => ScalarValue::Float(
                    value.parse().map_err(|_| anyhow!("--arg {name}: `{value}` is not a number ({dtype})"))?,
                ),
            };
            Ok((name.to_string(), v))
        })
        .collect()
}

fn read_inputs(specs: &[String], inputs: &mut Inputs) -> anyhow::Result<()> {
    for (name, path) in name_values("--input", specs)? {
        let Some(slot) = inputs.buffers.get_mut(name) else {
            let names: Vec<&String> = inputs.buffers.keys().collect();
            bail!("--input {name}: no buffer parameter of that name (parameters: {names:?})");
        };
        // The reader refuses a file of another element type or shape than the buffer's.
        *slot =
            tirproof::npy::read(Path::new(path), slot.dtype, &slot.shape).with_context(|| format!("--input {name}"))?;
    }
    Ok(())
}

fn report(args: &Args, result: &RunResult, src: &Source, replay: &str, found: &mut Report) -> anyhow::Result<()> {
    if let Outcome::Fault(fault) = &result.outcome {
        let details = fault.details();
        eprintln!("fault: {}", details.trim_end());
        eprintln!("{replay}");
        let location = Location::at(&src.name, fault.span.line, fault.span.col);
        found.add(Finding::new(Rule::RunFault, location, details.trim_end()));
        return Ok(());
    }
    write_outputs(args.output.as_deref(), &result.outputs, args.format.is_text(), &args.inputs)?;
    eprintln!("completed: {} statements executed; {replay}", result.stats.statements);
    Ok(())
}

/// Reports an engine's run: a fault or an engine failure (exit 1), or the outputs; an engine
/// that cannot run here at all (no GPU) is an error (exit 2). A fault in `lowered` PTX also
/// names the TIR statement of its PTX line.
fn report_execution(
    args: &Args,
    src: &Source,
    lowered: Option<&LoweredKernel>,
    engine: &str,
    execution: Execution,
    replay: &str,
    found: &mut Report,
) -> anyhow::Result<()> {
    match execution {
        Execution::Completed { outputs } => {
            write_outputs(args.output.as_deref(), &outputs, args.format.is_text(), &args.inputs)?;
            eprintln!("completed on the {engine}; {replay}");
        }
        Execution::Faulted { fault, .. } => {
            let mut message = format!("fault in the PTX of {} (on the PTX emulator): {}", src.name, fault.details())
                .trim_end()
                .to_string();
            if let Some(source) = lowered.and_then(|k| super::ptx::fault_source(src, k, fault.span.line)) {
                message.push('\n');
                message.push_str(source.trim_end());
            }
            eprintln!("{message}");
            eprintln!("{replay}");
            found.add(Finding::new(Rule::RunFault, Location::file(&src.name), &message));
        }
        Execution::Failed(EngineError::Unavailable(why)) => bail!("{why}"),
        Execution::Failed(error) => {
            eprintln!("{}: {error}", src.name);
            found.add(Finding::new(Rule::RunFault, Location::file(&src.name), error.to_string()));
        }
    }
    Ok(())
}

/// What `--output DIR` holds: one `NAME.npy` per output buffer.
const OUTPUT_LAYOUT: Layout = Layout { what: "output buffers", owns: |name| name.ends_with(".npy") };

/// Writes the outputs into `--output DIR` (none of them onto an `--input` file), or prints
/// them when `print` is set.
pub(super) fn write_outputs(
    output: Option<&Path>,
    outputs: &BTreeMap<String, Tensor>,
    print: bool,
    input_specs: &[String],
) -> anyhow::Result<()> {
    match output {
        Some(dir) => {
            let inputs: Vec<&Path> =
                input_specs.iter().filter_map(|s| s.split_once('=')).map(|(_, p)| Path::new(p)).collect();
            let mut files = Vec::with_capacity(outputs.len());
            for (name, tensor) in outputs {
                let file = format!("{name}.npy");
                if !is_plain_name(name) {
                    bail!("output buffer `{name}`: `{file}` is not a plain file name to write into {}", dir.display());
                }
                tirproof::output::refuse_inputs(&dir.join(&file), &inputs)?;
                files.push((file, tirproof::npy::encode(tensor).with_context(|| format!("output buffer `{name}`"))?));
            }
            publish(dir, OUTPUT_LAYOUT, files.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice())))?;
        }
        None if print => {
            for (name, tensor) in outputs {
                outln!("{name}: {}{:?} = {}", tensor.dtype, tensor.shape, tirproof::compare::show_tensor(tensor))?;
            }
        }
        None => {}
    }
    Ok(())
}

fn run_against(
    args: &Args,
    reference: &Path,
    subject: Subject<'_>,
    (inputs, config): (&Inputs, &RunConfig),
    src: &Source,
    replay: &str,
    found: &mut Report,
) -> anyhow::Result<()> {
    let Some((_, original_module)) = super::load_checked(reference, found) else { return Ok(()) };
    let original = select(&original_module, Some(&subject.func.name))?;
    let reference = Subject { engine: &Interpreter, func: original };
    let comparison = compare_runs(reference, subject, inputs, config).map_err(|e| anyhow!("{e}"))?;
    match comparison.mismatch() {
        Some(m) => {
            eprintln!("mismatch under {}: {m}", config.schedule);
            let message = format!("mismatch under {}: {m}", config.schedule);
            found.add(Finding::new(Rule::RunMismatch, Location::file(&src.name), message));
            for (side, execution) in
                [(Side::Original, &comparison.original), (Side::Transformed, &comparison.transformed)]
            {
                let Some(fault) = execution.fault() else { continue };
                let details = fault.details();
                if matches!(m, Difference::Faulted { side: reported, .. } if *reported == side) {
                    // The mismatch line already is the fault's first line.
                    eprint!("{}", details.split_once('\n').map_or("", |(_, rest)| rest));
                } else {
                    eprint!("the {} program faults too: {details}", side.name());
                }
            }
            eprintln!("{replay}");
            Ok(())
        }
        None => {
            let outputs = comparison.transformed.outputs().map(|o| o.len()).unwrap_or(0);
            let empty = BTreeMap::new();
            write_outputs(
                args.output.as_deref(),
                comparison.transformed.outputs().unwrap_or(&empty),
                args.print && args.format.is_text(),
                &args.inputs,
            )?;
            eprintln!(
                "equal under {}: both programs complete and all {outputs} outputs are bitwise equal; {replay}",
                config.schedule
            );
            Ok(())
        }
    }
}
