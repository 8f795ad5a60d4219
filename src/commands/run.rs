//! `tirproof run FILE`: execute a function with the reference interpreter, optionally against
//! a reference program on the same inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use tirproof::compare::compare;
use tirproof::source::Source;
use tirproof_interp::{random_inputs, run, Inputs, Outcome, RunConfig, RunResult, ScalarValue, Schedule, Tensor};
use tirproof_ir::{IRModule, PrimFunc};

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file.
    file: PathBuf,
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
    /// Seed for random inputs and for the order of threads between barriers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write every output buffer as DIR/NAME.npy instead of printing it.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Run this program on the same inputs too; succeed only if neither faults and all outputs
    /// are bitwise equal.
    #[arg(long, value_name = "ORIGINAL")]
    reference: Option<PathBuf>,
    /// Statements to execute before giving up (a fault).
    #[arg(long, default_value_t = 100_000_000)]
    fuel: u64,
}

pub fn run_command(args: &Args) -> anyhow::Result<ExitCode> {
    let Some(module) = load(&args.file)? else { return Ok(super::input_problems()) };
    let func = select(&module, args.func.as_deref())?;
    let scalars = parse_scalars(&args.args)?;
    let mut inputs = random_inputs(func, args.seed, &scalars).map_err(|e| anyhow!("{e}"))?;
    read_inputs(&args.inputs, &mut inputs)?;
    let config = RunConfig { schedule: args.schedule, thread_order_seed: Some(args.seed), fuel: args.fuel };
    match &args.reference {
        Some(reference) => run_against(args, reference, func, &inputs, &config),
        None => {
            let result = run(func, &inputs, &config).map_err(|e| anyhow!("{e}"))?;
            report(args, &result)
        }
    }
}

fn load(path: &Path) -> anyhow::Result<Option<IRModule>> {
    let src = Source::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    match src.parse_and_check() {
        Ok(m) => Ok(Some(m)),
        Err(diags) => {
            eprintln!("{}", src.render(&diags));
            Ok(None)
        }
    }
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

fn parse_scalars(args: &[String]) -> anyhow::Result<BTreeMap<String, ScalarValue>> {
    args.iter()
        .map(|a| {
            let (name, value) = a.split_once('=').ok_or_else(|| anyhow!("--arg `{a}` is not NAME=VALUE"))?;
            let v = match value {
                "true" | "True" => ScalarValue::Bool(true),
                "false" | "False" => ScalarValue::Bool(false),
                _ => match value.parse::<i64>() {
                    Ok(i) => ScalarValue::Int(i),
                    Err(_) => ScalarValue::Float(
                        value.parse().map_err(|_| anyhow!("--arg {name}: `{value}` is not a number or a bool"))?,
                    ),
                },
            };
            Ok((name.to_string(), v))
        })
        .collect()
}

fn read_inputs(specs: &[String], inputs: &mut Inputs) -> anyhow::Result<()> {
    for spec in specs {
        let (name, path) = spec.split_once('=').ok_or_else(|| anyhow!("--input `{spec}` is not NAME=PATH"))?;
        let Some(slot) = inputs.buffers.get_mut(name) else {
            let names: Vec<&String> = inputs.buffers.keys().collect();
            bail!("--input {name}: no buffer parameter of that name (parameters: {names:?})");
        };
        let tensor = tirproof::npy::read(Path::new(path), slot.dtype)?;
        if tensor.shape != slot.shape {
            bail!("--input {name}: {path} has shape {:?}, the parameter needs {:?}", tensor.shape, slot.shape);
        }
        *slot = tensor;
    }
    Ok(())
}

fn report(args: &Args, result: &RunResult) -> anyhow::Result<ExitCode> {
    if let Outcome::Fault(fault) = &result.outcome {
        eprintln!("fault: {}", fault.details());
        return Ok(super::input_problems());
    }
    write_outputs(args, &result.outputs)?;
    eprintln!("completed: {} statements executed", result.stats.statements);
    Ok(ExitCode::SUCCESS)
}

fn write_outputs(args: &Args, outputs: &BTreeMap<String, Tensor>) -> anyhow::Result<()> {
    match &args.output {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            for (name, tensor) in outputs {
                tirproof::npy::write(&dir.join(format!("{name}.npy")), tensor)?;
            }
        }
        None => {
            for (name, tensor) in outputs {
                println!("{name}: {}{:?} = {}", tensor.dtype, tensor.shape, tirproof::compare::show_tensor(tensor));
            }
        }
    }
    Ok(())
}

fn run_against(
    args: &Args,
    reference: &Path,
    func: &PrimFunc,
    inputs: &Inputs,
    config: &RunConfig,
) -> anyhow::Result<ExitCode> {
    let Some(original_module) = load(reference)? else { return Ok(super::input_problems()) };
    let original = select(&original_module, Some(&func.name))?;
    let comparison = compare(original, func, inputs, config).map_err(|e| anyhow!("{e}"))?;
    match comparison.mismatch() {
        Some(m) => {
            eprintln!("mismatch under {}: {m}", config.schedule);
            for execution in [&comparison.original, &comparison.transformed] {
                if let Some(f) = execution.fault() {
                    eprintln!("{}", f.details());
                }
            }
            Ok(super::input_problems())
        }
        None => {
            write_outputs(args, comparison.transformed.outputs().unwrap_or(&BTreeMap::new()))?;
            eprintln!("equal: both programs complete and every output is bitwise equal under {}", config.schedule);
            Ok(ExitCode::SUCCESS)
        }
    }
}
