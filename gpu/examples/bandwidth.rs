//! The bandwidth benchmark: the streaming kernel (`tirproof_gpu::stream`) without pipelining
//! and with 2-, 3- and 4-stage async pipelines, lowered to PTX for sm_80 as `tirproof ptx`
//! lowers it, each moving 4 GiB in and 4 GiB out on the GPU, against a device-to-device copy of
//! the same 4 GiB measured in the same run.
//!
//! `cargo run --release -p tirproof-gpu --example bandwidth -- [--blocks N] [--repeats N]
//! [--csv FILE]` prints one line per kernel with its best time, GB/s and ratio to the copy;
//! `--csv` writes the same table. Without a GPU it says why and exits with status 2.
//! `--write-tir DIR` writes the four kernels' TVMScript at the chosen size into DIR (as
//! `stream_none.py`, `stream_2_stage.py`, ...) and exits; it needs no GPU.

use std::fmt::Write as _;
use std::process::ExitCode;

use tirproof_gpu::stream::{elements, streaming_tir, Pipelining, BENCH_BLOCKS};
use tirproof_gpu::{gpu, GpuError, Measurement};
use tirproof_ptx::{lower_module, lower_tir, Arch};

struct Options {
    blocks: u64,
    repeats: usize,
    csv: Option<String>,
    write_tir: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut options = Options { blocks: BENCH_BLOCKS, repeats: 5, csv: None, write_tir: None };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--blocks" => options.blocks = value()?.parse().map_err(|e| format!("--blocks: {e}"))?,
            "--repeats" => options.repeats = value()?.parse().map_err(|e| format!("--repeats: {e}"))?,
            "--csv" => options.csv = Some(value()?),
            "--write-tir" => options.write_tir = Some(value()?),
            other => {
                return Err(format!("unknown option `{other}` (--blocks N, --repeats N, --csv FILE, --write-tir DIR)"))
            }
        }
    }
    Ok(options)
}

/// The kernel of `pipelining` over `blocks` blocks, lowered to PTX.
fn lowered(blocks: u64, pipelining: Pipelining) -> Result<tirproof_ptx::Module, String> {
    let text = streaming_tir(blocks, pipelining);
    let mut module = tirproof_reader::parse_module(&text).map_err(|e| format!("{pipelining}: {e}"))?;
    lower_tir(&mut module).map_err(|e| format!("{pipelining}: {e}"))?;
    Ok(lower_module(&module, Arch::Sm80).map_err(|e| format!("{pipelining}: {e}"))?.module)
}

/// Writes the kernels' TVMScript into `dir`.
fn write_tir(dir: &str, blocks: u64) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    for pipelining in Pipelining::ALL {
        let path = std::path::Path::new(dir).join(format!("stream_{}.py", pipelining.name().replace('-', "_")));
        std::fs::write(&path, streaming_tir(blocks, pipelining)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn bench(options: &Options) -> Result<String, String> {
    let gpu = gpu().map_err(|e| e.to_string())?;
    let device_error = |e: GpuError| e.to_string();
    let bytes = usize::try_from(elements(options.blocks) * 4).map_err(|e| e.to_string())?;
    let a = gpu.zeroed(bytes).map_err(device_error)?;
    let mut c = gpu.zeroed(bytes).map_err(device_error)?;
    let copy = gpu.measure_copy(&a, &mut c, options.repeats).map_err(device_error)?;
    let mut rows: Vec<(String, Measurement)> = Vec::new();
    for pipelining in Pipelining::ALL {
        let module = lowered(options.blocks, pipelining)?;
        let loaded = gpu.load(&module).map_err(device_error)?;
        let kernel = loaded.first().ok_or("no kernel")?;
        rows.push((pipelining.name(), gpu.measure_stream(kernel, &a, &c, options.repeats).map_err(device_error)?));
    }
    rows.push(("memcpy_dtod".into(), copy.clone()));
    let mut table = format!("# device: {}\n# bytes per run (read + written): {}\n", gpu.name(), copy.bytes);
    table.push_str("kernel,best_ms,gb_per_s,ratio_to_memcpy_dtod\n");
    for (name, m) in &rows {
        let ratio = m.gb_per_s() / copy.gb_per_s();
        let _ = writeln!(table, "{name},{:.3},{:.1},{ratio:.3}", m.best().as_secs_f64() * 1e3, m.gb_per_s());
    }
    Ok(table)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &options.write_tir {
        return match write_tir(dir, options.blocks) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    match bench(&options) {
        Ok(table) => {
            print!("{table}");
            if let Some(path) = &options.csv {
                if let Err(e) = std::fs::write(path, &table) {
                    eprintln!("error: cannot write {path}: {e}");
                    return ExitCode::from(2);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
