//! `tirproof ptx FILE [--arch sm_80|sm_90] [-o OUT.ptx]`: lower a TIR program to PTX; and
//! `tirproof run --ptx FILE.ptx`: run a kernel of PTX text on the emulator.
//!
//! The module goes through the lowering pipeline (`tirproof_ptx::LOWERING_PASSES`), then
//! codegen; the PTX is printed or written (atomically onto a regular file). Codegen's notes (an async copy done
//! synchronously, a wait made stricter) go to stderr. A pass that refuses the module, or a
//! statement codegen cannot lower, is reported with its location and exits 1.
//!
//! Running PTX text: the kernel's parameters are bound by name, in parameter order (a 64-bit
//! address by `--input NAME=FILE.npy`, in the file's own element type; a scalar by `--arg`,
//! which must fit the parameter's type), and `--seed` orders the threads of a block between
//! barriers (without it they run in order). The launch rules (the targets' limits, the
//! kernel's `.reqntid`/`.maxntid`, the encoding of arguments) are the PTX crate's
//! (`tirproof_ptx::launch`, `tirproof_ptx::args`); this module parses the flags and reports.
//! PTX that does not parse, a kernel that does not
//! exist, a launch shape or shared memory size that does not fit the kernel or the target,
//! and anything the emulator refuses are errors at a `file:line:col` of the PTX; a fault of the
//! program names the PTX line. A problem of the input or of the launch is bad input (exit 4);
//! a fault is a finding (exit 1). With a machine `--format`, standard output holds the report
//! only: the PTX is written with `-o` or not at all, and outputs with `--output DIR`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use tirproof::findings::{FileStatus, Finding, Format, FormatArgs, Location, Report, Rule};
use tirproof::source::{Source, STDIN_PATH};
use tirproof_interp::{Schedule, Tensor};
use tirproof_ir::{Diagnostics, IRModule, PrimFunc};
use tirproof_ptx::args::{ArgBinder, ArgError, KernelArg, ScalarArg};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuError, EmuOutcome};
use tirproof_ptx::launch::LaunchRequest;
use tirproof_ptx::launch_file::{LaunchFile, LaunchFileError, ParamSpec};
use tirproof_ptx::module::{Dims, Kernel, Ty};
use tirproof_ptx::parse::{parse, Parsed};
use tirproof_ptx::{
    lower_kernel, lower_module_from, lower_tir, module::print, Arch, KernelError, LowerError, Lowered, LoweredKernel,
    PrepareError,
};

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file (`-`: standard input).
    file: PathBuf,
    /// The GPU architecture to target (sm_80 or sm_90).
    #[arg(long, default_value = "sm_80")]
    arch: Arch,
    /// Write the PTX here (atomically) instead of printing it.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    format: FormatArgs,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if let Some(output) = &args.output {
        tirproof::output::refuse_inputs(output, &[&args.file])?;
    }
    let mut found = Report::new("ptx");
    let Some((src, module)) = super::load_checked(&args.file, &mut found) else {
        return found.finish(args.format.format());
    };
    let lowered = match lower_checked(&src, source_file(&args.file, &src), module, args.arch) {
        Ok(lowered) => lowered,
        Err(rendered) => {
            eprintln!("{rendered}");
            found.add(Finding::new(Rule::LoweringRefused, Location::file(&src.name), rendered.trim_end()));
            return found.finish(args.format.format());
        }
    };
    // Notes that say the same thing at the same place (statements the pipeline copied) once.
    let mut said = std::collections::HashSet::new();
    for note in lowered.notes.iter().map(ToString::to_string).filter(|note| said.insert(note.clone())) {
        eprintln!("{}:{note}", src.name);
    }
    let text = print(&lowered.module)?;
    match &args.output {
        Some(path) => tirproof::output::write_file(path, text.as_bytes())?,
        None if args.format.is_text() => tirproof::out!("{text}")?,
        None => {}
    }
    found.finish(args.format.format())
}

/// The name the PTX's `.file` gives the program read from `path`: none for standard input,
/// whose lines no file holds (the PTX then has no `.loc`).
pub fn source_file<'s>(path: &Path, src: &'s Source) -> Option<&'s str> {
    (path != Path::new(STDIN_PATH)).then_some(src.name.as_str())
}

/// Runs the lowering pipeline and codegen (its `.loc`s naming `file`) on a checked module;
/// what stopped it, rendered against the source.
fn lower_checked(src: &Source, file: Option<&str>, mut module: IRModule, arch: Arch) -> Result<Lowered, String> {
    lower_tir(&mut module).map_err(|error| render_prepare(src, error))?;
    lower_module_from(&module, arch, file).map_err(|error| render_lower(src, &error))
}

/// Lowers one function of a checked module to its kernel (`tirproof_ptx::lower_kernel`, its
/// `.loc`s naming `file`); what stopped it, rendered against the source.
pub fn lower_one(src: &Source, file: Option<&str>, func: &PrimFunc, arch: Arch) -> Result<LoweredKernel, String> {
    lower_kernel(func, arch, file).map_err(|error| match error {
        KernelError::Prepare(error) => render_prepare(src, error),
        KernelError::Lower(error) => render_lower(src, &error),
        other => other.to_string(),
    })
}

/// The TIR statement a fault at PTX line `ptx_line` of `lowered` comes from, as
/// `source: FILE:LINE:COL` and the line's text, where the kernel has source lines.
pub fn fault_source(src: &Source, lowered: &LoweredKernel, ptx_line: u32) -> Option<String> {
    let loc = lowered.source_at_line(ptx_line)?;
    let text = tirproof_ir::span::source_lines(&src.text).nth(loc.line.saturating_sub(1) as usize)?;
    Some(format!("source: {}:{}:{}\n  {}", src.name, loc.line, loc.col, text.trim()))
}

fn render_prepare(src: &Source, error: PrepareError) -> String {
    match error {
        PrepareError::Pipeline(e) => e.render(&src.name, &src.text),
        other => other.to_string(),
    }
}

fn render_lower(src: &Source, error: &LowerError) -> String {
    src.render(&Diagnostics(vec![error.to_diagnostic()]))
}

/// Three launch dimensions, `X,Y,Z` (missing trailing ones are 1), as `--grid` and `--block`
/// take them.
fn parse_dims(s: &str) -> Result<Dims, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("`{s}` has more than three dimensions"));
    }
    let mut dims = [1u32; 3];
    for (dim, part) in dims.iter_mut().zip(parts) {
        *dim = part.parse().map_err(|_| format!("`{part}` is not a dimension (a whole number)"))?;
        if *dim == 0 {
            return Err(format!("`{s}`: a dimension is at least 1"));
        }
    }
    Ok(Dims(dims))
}

/// The flags of `tirproof run --ptx FILE.ptx`.
#[derive(clap::Args)]
pub struct TextRunArgs {
    /// Run this PTX file on the emulator instead of a TIR program.
    #[arg(long, value_name = "FILE.ptx", conflicts_with_all = ["file", "reference", "print", "func", "engine"])]
    pub ptx: Option<PathBuf>,
    /// The kernel to run (default: the only one).
    #[arg(long, requires = "ptx")]
    pub kernel: Option<String>,
    /// Blocks of the grid, X,Y,Z (default: the kernel's `// launch: grid` comment, or 1,1,1).
    #[arg(long, requires = "ptx", value_name = "X,Y,Z", value_parser = parse_dims)]
    pub grid: Option<Dims>,
    /// Threads of a block, X,Y,Z (default: the kernel's `.reqntid`, or 1,1,1).
    #[arg(long, requires = "ptx", value_name = "X,Y,Z", value_parser = parse_dims)]
    pub block: Option<Dims>,
    /// Dynamic shared memory per block in bytes (default 0); with the kernel's static arrays it
    /// must fit the target's limit.
    #[arg(long, requires = "ptx", value_name = "BYTES")]
    pub shared: Option<u64>,
    /// Launch as this file says (JSON: kernel, grid, block, shared, seed, and each parameter by
    /// name as {"buffer": {"dtype", "len", "npy"?}} or {"scalar": VALUE}); --write-launch
    /// writes one to start from.
    #[arg(
        long = "launch",
        requires = "ptx",
        value_name = "FILE.json",
        conflicts_with_all = ["kernel", "grid", "block", "shared", "inputs", "args"]
    )]
    pub launch_file: Option<PathBuf>,
    /// Write a launch file for the kernel from its header (`.reqntid`/`.maxntid`, parameter
    /// types, `.extern .shared`) instead of running it; adjust it, then run with --launch.
    #[arg(long, requires = "ptx", value_name = "OUT.json", conflicts_with = "launch_file")]
    pub write_launch: Option<PathBuf>,
}

impl TextRunArgs {
    /// The first launch flag given, which only `--ptx` takes.
    pub fn launch_flag(&self) -> Option<&'static str> {
        [
            ("--kernel", self.kernel.is_some()),
            ("--grid", self.grid.is_some()),
            ("--block", self.block.is_some()),
            ("--shared", self.shared.is_some()),
            ("--launch", self.launch_file.is_some()),
            ("--write-launch", self.write_launch.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }
}

/// What `tirproof run --ptx` needs of `tirproof run`'s flags.
pub struct TextRun<'a> {
    pub file: &'a Path,
    pub launch: &'a TextRunArgs,
    pub schedule: Schedule,
    /// `--seed`: the emulator runs a block's threads in the seed's order, as `tirproof run`
    /// does; without it, in order.
    pub thread_order_seed: Option<u64>,
    pub fuel: u64,
    pub inputs: &'a [String],
    pub args: &'a [String],
    pub output: Option<&'a Path>,
    /// How the run is reported.
    pub format: Format,
}

/// A problem of the PTX or of the launch, at a position of the PTX file.
struct Located {
    line: u32,
    col: u32,
    message: String,
}

/// Runs a kernel of PTX text on the emulator with `.npy` buffers and scalar arguments bound
/// to its parameters by name.
pub fn run_text(run: &TextRun<'_>) -> anyhow::Result<ExitCode> {
    let mut found = Report::new("run");
    let source = match super::read_source(run.file) {
        Ok(source) => source,
        Err(error) => {
            found.unreadable(&error);
            return found.finish(run.format);
        }
    };
    if let Some(error) = &source.decode_error {
        let diagnostics = error.clone().into();
        eprintln!("{}", source.render(&diagnostics));
        found.reject(&source.name, &diagnostics);
        return found.finish(run.format);
    }
    let (name, text) = (source.name, source.text);
    let located = |l: Located| {
        eprintln!("{name}:{}:{}: {}", l.line, l.col, l.message);
        let mut found = Report::new("run");
        found.file(&name, FileStatus::Rejected);
        found.add(Finding::new(Rule::BadInput, Location::at(&name, l.line, l.col), l.message));
        found.finish(run.format)
    };
    let parsed = match parse(&text) {
        Ok(parsed) => parsed,
        Err(e) => return located(Located { line: e.line, col: e.col, message: e.message }),
    };
    if let Some(out) = &run.launch.write_launch {
        return write_launch(&parsed, run.launch.kernel.as_deref(), run.file, out);
    }
    let launch_file = match &run.launch.launch_file {
        Some(path) => match read_launch_file(path)? {
            Ok(file) => Some((path, file)),
            Err(problem) => {
                let file = path.display().to_string();
                eprintln!("{file}:{}:{}: {}", problem.line, problem.col, problem.message);
                let (line, col) =
                    (u32::try_from(problem.line).unwrap_or(u32::MAX), u32::try_from(problem.col).unwrap_or(u32::MAX));
                let mut found = Report::new("run");
                found.file(&file, FileStatus::Rejected);
                found.add(Finding::new(Rule::BadInput, Location::at(&file, line, col), problem.message));
                return found.finish(run.format);
            }
        },
        None => None,
    };
    let (wanted, request) = match &launch_file {
        Some((_, file)) => (Some(file.kernel.as_str()), file.request()),
        None => {
            let flags = run.launch;
            let request =
                LaunchRequest { grid: flags.grid, block: flags.block, dynamic_shared: flags.shared.unwrap_or(0) };
            (flags.kernel.as_deref(), request)
        }
    };
    let (index, kernel, lines) = match launched_kernel(&parsed, &text, wanted, request) {
        Ok(found) => found,
        Err(l) => return located(l),
    };
    for warning in launch_warnings(&parsed, index, &kernel, request) {
        eprintln!("{name}: warning: {warning}");
    }
    let args = match &launch_file {
        Some((path, file)) => {
            let seed = run.thread_order_seed.or(file.seed).unwrap_or(0);
            let (args, random) = launch_args(&kernel, file, path, seed)?;
            let what = match (random, run.thread_order_seed.is_some()) {
                (true, true) => Some("random buffers, thread order"),
                (true, false) => Some("random buffers"),
                (false, true) => Some("thread order"),
                (false, false) => None,
            };
            if let Some(what) = what {
                eprintln!("seed {seed} ({what}); replay: --seed {seed}");
            }
            args
        }
        None => {
            if let Some(seed) = run.thread_order_seed {
                eprintln!("seed {seed} (thread order); replay: --seed {seed}");
            }
            kernel_args(&kernel, run.inputs, run.args)?
        }
    };
    let config = EmuConfig { schedule: run.schedule, thread_order_seed: run.thread_order_seed, fuel: run.fuel };
    let result = match run_kernel(&kernel, Some(lines), &args, &config) {
        Ok(result) => result,
        // What the emulator does not model is located at its instruction; anything else at the
        // kernel's entry.
        Err(EmuError::UnsupportedAt { line, inst, what }) => {
            let col = text.lines().nth(line.saturating_sub(1) as usize).map_or(1, |l| {
                u32::try_from(l.len() - l.trim_start().len()).map_or(1, |indent| indent.saturating_add(1))
            });
            return located(Located { line, col, message: format!("unsupported: {what}, at `{inst}`") });
        }
        Err(e) => {
            let (line, col) = position(&text, entry_offset(&text, &kernel.name));
            return located(Located { line, col, message: e.to_string() });
        }
    };
    found.file(&name, FileStatus::Checked);
    if let EmuOutcome::Fault(fault) = &result.outcome {
        let mut message = format!("fault in {name}: {}", fault.details()).trim_end().to_string();
        if let Some(source) = parsed.sources.at(fault.span.line) {
            message.push_str(&format!(
                "
source: {source}"
            ));
        }
        eprintln!("{message}");
        found.add(Finding::new(Rule::RunFault, Location::file(&name), &message));
        return found.finish(run.format);
    }
    let outputs: BTreeMap<String, Tensor> = kernel
        .params
        .iter()
        .zip(result.buffers)
        .filter_map(|(param, tensor)| Some((param.name.clone(), tensor?)))
        .collect();
    super::run::write_outputs(run.output, &outputs, run.format == Format::Text, run.inputs)?;
    eprintln!("completed: {} instructions executed", result.instructions);
    found.finish(run.format)
}

/// The kernel `wanted` names (or the only one) with the launch shape `request` asks for,
/// checked against the kernel's directives and the target's limits (`Kernel::launched`): its
/// position, the launched kernel and the PTX line of each body entry.
fn launched_kernel<'p>(
    parsed: &'p Parsed,
    text: &str,
    wanted: Option<&str>,
    request: LaunchRequest,
) -> Result<(usize, Kernel, &'p [u32]), Located> {
    let kernels = &parsed.module.kernels;
    let names = || kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ");
    let index = match wanted {
        Some(wanted) => kernels.iter().position(|k| k.name == wanted).ok_or_else(|| Located {
            line: 1,
            col: 1,
            message: format!("no kernel `{wanted}` (the module has: {})", names()),
        })?,
        None if kernels.len() == 1 => 0,
        None => {
            let message = format!("choose a kernel with --kernel (the module has: {})", names());
            return Err(Located { line: 1, col: 1, message });
        }
    };
    let (Some(kernel), Some(lines)) = (kernels.get(index), parsed.lines.get(index)) else {
        return Err(Located { line: 1, col: 1, message: "the module has no kernel".into() });
    };
    match kernel.launched(parsed.module.arch, request) {
        Ok(kernel) => Ok((index, kernel, lines)),
        Err(error) => {
            let (line, col) = position(text, entry_offset(text, &kernel.name));
            Err(Located { line, col, message: error.to_string() })
        }
    }
}

/// What the launch leaves to defaults a kernel likely does not mean: a block or grid that no
/// flag, directive or comment gives (1,1,1), and dynamic shared memory the kernel declares
/// (`.extern .shared`) but the launch sizes 0.
fn launch_warnings(parsed: &Parsed, index: usize, kernel: &Kernel, request: LaunchRequest) -> Vec<String> {
    let mut warnings = Vec::new();
    let hint = "give it, or --launch FILE.json (--write-launch OUT.json writes one from the kernel's header)";
    if request.block.is_none() && kernel.directives.reqntid.is_none() {
        warnings.push(format!(
            "the block is {} by default (the kernel has no `.reqntid`): {hint}",
            Dims(kernel.launch.block)
        ));
    }
    if request.grid.is_none() && !parsed.grid_stated.get(index).copied().unwrap_or(false) {
        warnings.push(format!(
            "the grid is {} by default (the text has no `// launch: grid`): {hint}",
            Dims(kernel.launch.grid)
        ));
    }
    if request.dynamic_shared == 0 {
        if let Some(array) = kernel.arrays.iter().find(|a| a.dynamic) {
            warnings.push(format!(
                "the kernel's dynamic shared memory (`.extern .shared {}`) has 0 bytes: give --shared BYTES",
                array.name
            ));
        }
    }
    warnings
}

/// `--write-launch OUT.json`: a launch file for the kernel from its header, and notes on what
/// to adjust.
fn write_launch(parsed: &Parsed, wanted: Option<&str>, ptx: &Path, out: &Path) -> anyhow::Result<ExitCode> {
    tirproof::output::refuse_inputs(out, &[ptx])?;
    let kernels = &parsed.module.kernels;
    let kernel = match wanted {
        Some(wanted) => kernels.iter().find(|k| k.name == wanted),
        None if kernels.len() == 1 => kernels.first(),
        None => None,
    };
    let Some(kernel) = kernel else {
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        bail!("choose a kernel with --kernel (the module has: {})", names.join(", "));
    };
    let (file, notes) = LaunchFile::of_kernel(kernel);
    tirproof::output::write_file(out, file.to_json().as_bytes())?;
    eprintln!("wrote {} for kernel `{}`; adjust it, then run with --launch:", out.display(), kernel.name);
    for note in notes {
        eprintln!("  {note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A launch file, or what is wrong with it at `file:line:col`.
fn read_launch_file(path: &Path) -> anyhow::Result<Result<LaunchFile, LaunchFileError>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(LaunchFile::parse(&text))
}

/// The kernel's arguments as a launch file binds them (`.npy` paths relative to the file),
/// and whether any buffer is random (drawn from `seed`).
fn launch_args(kernel: &Kernel, file: &LaunchFile, path: &Path, seed: u64) -> anyhow::Result<(Vec<KernelArg>, bool)> {
    let at = |name: &str| format!("{}: parameter `{name}`", path.display());
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut binder = ArgBinder::new(kernel);
    let mut random = false;
    for (name, spec) in &file.params {
        let (position, param) = binder.param(name).with_context(|| path.display().to_string())?;
        match spec {
            ParamSpec::Buffer(buffer) => {
                let tensor = match &buffer.npy {
                    Some(npy) => {
                        let tensor = tirproof::npy::read_stored(&dir.join(npy)).with_context(|| at(name))?;
                        let len: usize = tensor.shape.iter().product();
                        if tensor.dtype != buffer.dtype.0 || len != buffer.len {
                            bail!(
                                "{}: {} holds {len} elements of {}, the launch file says {} of {}",
                                at(name),
                                npy.display(),
                                tensor.dtype,
                                buffer.len,
                                buffer.dtype.0
                            );
                        }
                        tensor
                    }
                    None => {
                        random = true;
                        buffer.random(seed, position).with_context(|| at(name))?
                    }
                };
                binder.buffer(name, tensor).with_context(|| at(name))?;
            }
            ParamSpec::Scalar(value) => binder.scalar(name, value.arg(param.ty)).with_context(|| at(name))?,
        }
    }
    for (name, map) in &file.tensor_maps {
        let tensor = map.tensor(kernel).map_err(|e| anyhow!("{}: {e}", at(name)))?;
        binder.buffer(name, tensor).with_context(|| at(name))?;
    }
    let args = binder.finish().map_err(|error| match error {
        ArgError::Unbound { name, ty } => {
            anyhow!("{}: parameter `{name}` ({ty}) is unbound: add it to \"params\"", path.display())
        }
        other => anyhow!("{}: {other}", path.display()),
    })?;
    Ok((args, random))
}

/// The byte offset of `.entry NAME` in the text.
fn entry_offset(text: &str, kernel: &str) -> Option<usize> {
    text.match_indices(".entry").map(|(at, _)| at).find(|&at| {
        let after = text.get(at + ".entry".len()..).unwrap_or_default().trim_start().strip_prefix(kernel);
        after.is_some_and(|a| !a.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$'))
    })
}

/// The 1-based line and column of a byte offset (the start of the text without one).
fn position(text: &str, offset: Option<usize>) -> (u32, u32) {
    let before = offset.and_then(|at| text.get(..at)).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (to_u32(line), to_u32(col))
}

/// The kernel's arguments in parameter order: every parameter is bound by name, a buffer
/// (a 64-bit address parameter) by `--input NAME=FILE.npy`, a scalar by `--arg NAME=VALUE`
/// read by the parameter's type and encoded in it (`tirproof_ptx::args`).
fn kernel_args(kernel: &Kernel, inputs: &[String], args: &[String]) -> anyhow::Result<Vec<KernelArg>> {
    let buffers = super::run::name_values("--input", inputs)?;
    let scalars = super::run::name_values("--arg", args)?;
    let mut binder = ArgBinder::new(kernel);
    for name in buffers.keys().chain(scalars.keys()) {
        binder.param(name)?;
    }
    for param in &kernel.params {
        let name = param.name.as_str();
        match (buffers.get(name), scalars.get(name)) {
            (Some(_), Some(_)) => bail!("parameter `{name}` is given both --input and --arg"),
            (Some(_), None) if !param.takes_buffer() => {
                bail!("--input {name}: {}", ArgError::NotAnAddress { ty: param.ty })
            }
            (Some(path), None) => {
                let tensor = tirproof::npy::read_stored(Path::new(path)).with_context(|| format!("--input {name}"))?;
                binder.buffer(name, tensor).with_context(|| format!("--input {name}"))?;
            }
            (None, Some(value)) => {
                let value = scalar_value(name, param.ty, value)?;
                binder.scalar(name, value).map_err(|e| anyhow!("--arg {name}: {e}"))?;
            }
            (None, None) => {}
        }
    }
    binder.finish().map_err(|error| match error {
        ArgError::Unbound { name, ty } => {
            anyhow!("parameter `{name}` ({ty}) is unbound: give --input {name}=FILE.npy or --arg {name}=VALUE")
        }
        other => other.into(),
    })
}

/// `--arg NAME=VALUE`'s value read as the parameter's type takes it: `true`/`false` (or 1/0)
/// for a predicate, a number for a float, an integer otherwise.
fn scalar_value(name: &str, ty: Ty, value: &str) -> anyhow::Result<ScalarArg> {
    let bad = |what: &str| anyhow!("--arg {name}: `{value}` is not {what} (the parameter is {ty})");
    if ty == Ty::Pred {
        return match value {
            "true" | "1" => Ok(ScalarArg::Pred(true)),
            "false" | "0" => Ok(ScalarArg::Pred(false)),
            _ => Err(bad("a predicate")),
        };
    }
    if ty.is_float() {
        return value.parse().map(ScalarArg::Float).map_err(|_| bad("a number"));
    }
    value.parse().map(ScalarArg::Int).map_err(|_| bad("an integer"))
}
