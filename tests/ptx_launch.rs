//! `tirproof run --ptx` with launch files, as a user runs a compiler's PTX: `--write-launch`
//! writes one from the kernel's header, and with it adjusted (the shapes and buffers of
//! `corpus/ptx-foreign/kernels.json`) every nvcc and Triton kernel there runs clean; a defaulted
//! shape and unsized dynamic shared memory are warned about; launch mistakes (a buffer too
//! short, of another element type) say what is wrong; a bad launch file is an error at its
//! line and column; `.loc` lines name the source line of a fault; every run says the seed that
//! replays it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};
use tirproof_ir::dtype::DataType;
use tirproof_machine::Tensor;

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn foreign(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ptx-foreign").join(file)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("tirproof-ptx-launch-").tempdir().expect("scratch dir")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

fn manifest() -> Value {
    serde_json::from_str(&fs::read_to_string(foreign("kernels.json")).expect("kernels.json")).expect("json")
}

/// Writes the launch file of `kernel` in `ptx` with `--write-launch`, and reads it back.
fn written_launch(dir: &Path, ptx: &Path, kernel: &str) -> (PathBuf, Value) {
    let out = dir.join(format!("{kernel}.json"));
    let written = tirproof(&["run", "--ptx", &show(ptx), "--kernel", kernel, "--write-launch", &show(&out)]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(stderr(&written).contains("adjust it"), "{}", stderr(&written));
    let value = serde_json::from_str(&fs::read_to_string(&out).expect("the launch file")).expect("json");
    (out, value)
}

#[test]
fn foreign_kernels_run_clean_with_a_written_and_adjusted_launch_file() {
    let dir = scratch();
    for launch in manifest()["launches"].as_array().expect("launches") {
        let ptx = foreign(launch["file"].as_str().expect("file"));
        let kernel = launch["kernel"].as_str().expect("kernel");
        let (path, mut file) = written_launch(dir.path(), &ptx, kernel);
        // What the header says is kept: the block of `.reqntid`, one entry per parameter in order.
        let params = file["params"].as_object().expect("params").clone();
        let wanted = launch["params"].as_array().expect("params");
        assert_eq!(params.len(), wanted.len(), "{kernel}: {file}");
        if fs::read_to_string(&ptx).expect("ptx").contains(".reqntid") {
            assert_eq!(file["block"], launch["block"], "{kernel}");
        }
        file["grid"] = launch["grid"].clone();
        file["block"] = launch["block"].clone();
        file["shared"] = launch["shared"].clone();
        let mut adjusted = serde_json::Map::new();
        // The compilers name parameters `KERNEL_param_N` (a JSON object here is sorted by name).
        for (index, param) in wanted.iter().enumerate() {
            let name = format!("{kernel}_param_{index}");
            assert!(params.contains_key(&name), "{kernel}: {name} in {file}");
            let spec = match (param.get("buffer"), param.get("fill").and_then(Value::as_array)) {
                // Contents the kernel depends on (a trip count): a .npy file beside the launch.
                (Some(_), Some(values)) => {
                    let npy = format!("{kernel}_{index}.npy");
                    let dtype: DataType = param["dtype"].as_str().expect("a dtype").parse().expect("a dtype");
                    let values: Vec<f64> = values.iter().map(|v| v.as_f64().expect("a number")).collect();
                    let tensor = Tensor::from_f64(dtype, vec![values.len()], &values).expect("a tensor");
                    tirproof::npy::write(&dir.path().join(&npy), &tensor).expect("writes");
                    json!({"buffer": {"dtype": param["dtype"], "len": param["len"], "npy": npy}})
                }
                (Some(_), None) => json!({"buffer": {"dtype": param["dtype"], "len": param["len"]}}),
                // An f32 scalar's value is its bits in the manifest.
                (None, _) if param["scalar"] == "f32" => {
                    let bits = param["value"].as_u64().expect("bits") as u32;
                    json!({"scalar": f64::from(f32::from_bits(bits))})
                }
                (None, _) => json!({"scalar": param["value"]}),
            };
            adjusted.insert(name, spec);
        }
        file["params"] = Value::Object(adjusted);
        fs::write(&path, serde_json::to_string_pretty(&file).expect("json")).expect("write");
        let out = tirproof(&[
            "run",
            "--ptx",
            &show(&ptx),
            "--launch",
            &show(&path),
            "--output",
            &show(&dir.path().join(kernel)),
        ]);
        assert_eq!(out.status.code(), Some(0), "{kernel}: {}", stderr(&out));
        assert!(!stderr(&out).contains("warning"), "{kernel}: {}", stderr(&out));
        assert!(stderr(&out).contains("seed 0 (random buffers); replay: --seed 0"), "{}", stderr(&out));
    }
}

#[test]
fn a_defaulted_shape_and_unsized_dynamic_shared_memory_are_warned_about() {
    let out = tirproof(&["run", "--ptx", &show(&foreign("triton_row_sum.ptx"))]);
    let text = stderr(&out);
    assert!(text.contains("warning: the grid is 1,1,1 by default"), "{text}");
    assert!(!text.contains("warning: the block"), "row_sum has .reqntid: {text}");
    assert!(
        text.contains("warning: the kernel's dynamic shared memory (`.extern .shared global_smem`) has 0 bytes"),
        "{text}"
    );
    let nvcc = stderr(&tirproof(&[
        "run",
        "--ptx",
        &show(&foreign("nvcc_pipeline_primitives.ptx")),
        "--kernel",
        "pipelined_scale",
    ]));
    assert!(nvcc.contains("warning: the block is 1,1,1 by default (the kernel has no `.reqntid`)"), "{nvcc}");
    let given = tirproof(&[
        "run",
        "--ptx",
        &show(&foreign("nvcc_pipeline_primitives.ptx")),
        "--kernel",
        "pipelined_scale",
        "--block",
        "128",
        "--grid",
        "2",
    ]);
    assert!(!stderr(&given).contains("warning"), "{}", stderr(&given));
}

/// A launch of `pipelined_scale` (2 blocks of 128 threads scaling 5 tiles each, 1280
/// elements) with `input` bound as given.
fn scale_launch(dir: &Path, input: Value) -> Output {
    let file = json!({
        "kernel": "pipelined_scale", "grid": [2, 1, 1], "block": [128, 1, 1],
        "params": {
            "pipelined_scale_param_0": input,
            "pipelined_scale_param_1": {"buffer": {"dtype": "float32", "len": 1280}},
            "pipelined_scale_param_2": {"scalar": 5}
        }
    });
    let path = dir.join("scale.json");
    fs::write(&path, file.to_string()).expect("write");
    tirproof(&[
        "run",
        "--ptx",
        &show(&foreign("nvcc_pipeline_primitives.ptx")),
        "--launch",
        &show(&path),
        "--output",
        &show(&dir.join("out")),
    ])
}

#[test]
fn launch_mistakes_say_what_is_wrong() {
    let dir = scratch();
    let right = scale_launch(dir.path(), json!({"buffer": {"dtype": "float32", "len": 1280}}));
    assert_eq!(right.status.code(), Some(0), "{}", stderr(&right));
    let short = scale_launch(dir.path(), json!({"buffer": {"dtype": "float32", "len": 4}}));
    assert!(
        stderr(&short).contains("buffer `pipelined_scale_param_0` has 16 bytes, the kernel accesses bytes"),
        "{}",
        stderr(&short)
    );
    assert!(!stderr(&short).contains("history"), "{}", stderr(&short));
    let wide = scale_launch(dir.path(), json!({"buffer": {"dtype": "float64", "len": 1280}}));
    assert!(
        stderr(&wide).contains("(buffer `pipelined_scale_param_0` holds float64: bind a buffer of 4-byte elements)"),
        "{}",
        stderr(&wide)
    );
    // A .npy file of another type than the launch file says is refused before running.
    let npy = dir.path().join("in.npy");
    let made = tirproof(&[
        "run",
        "--ptx",
        &show(&foreign("nvcc_pipeline_primitives.ptx")),
        "--kernel",
        "pipelined_scale",
        "--write-launch",
        &show(&dir.path().join("w.json")),
    ]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let ran = scale_launch(dir.path(), json!({"buffer": {"dtype": "float32", "len": 1280}}));
    assert_eq!(ran.status.code(), Some(0));
    fs::copy(dir.path().join("out/pipelined_scale_param_1.npy"), &npy).expect("an npy");
    let mismatched = scale_launch(dir.path(), json!({"buffer": {"dtype": "float16", "len": 1280, "npy": "in.npy"}}));
    assert!(
        stderr(&mismatched).contains("in.npy holds 1280 elements of float32, the launch file says 1280 of float16"),
        "{}",
        stderr(&mismatched)
    );
    let from_file = scale_launch(dir.path(), json!({"buffer": {"dtype": "float32", "len": 1280, "npy": "in.npy"}}));
    assert_eq!(from_file.status.code(), Some(0), "{}", stderr(&from_file));
}

#[test]
fn a_bad_launch_file_is_an_error_at_its_line_and_column() {
    let dir = scratch();
    let path = dir.path().join("bad.json");
    fs::write(&path, "{\"kernel\": \"pipelined_scale\",\n \"grid\": [2, 1, 1],\n \"block\": 128}").expect("write");
    let out = tirproof(&["run", "--ptx", &show(&foreign("nvcc_pipeline_primitives.ptx")), "--launch", &show(&path)]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(&format!("{}:3:", show(&path))), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

const LOC_KERNEL: &str = ".version 7.0\n.target sm_80\n.address_size 64\n.file 1 \"kernel.cu\"\n\
    .visible .entry k(.param .u64 a)\n.reqntid 1, 1, 1\n{\n.reg .b64 %rd<3>;\n.reg .f32 %f<2>;\n\
    .loc 1 12 5\nld.param.u64 %rd1, [a];\ncvta.to.global.u64 %rd2, %rd1;\n.loc 1 13 3\n\
    ld.global.f32 %f1, [%rd2+64];\nret;\n}\n";

#[test]
fn a_fault_names_the_source_line_of_its_loc() {
    let dir = scratch();
    let ptx = dir.path().join("k.ptx");
    fs::write(&ptx, LOC_KERNEL).expect("write");
    let launch = dir.path().join("k.json");
    let file = json!({"kernel": "k", "grid": [1, 1, 1], "block": [1, 1, 1], "seed": 7, "params": {"a": {"buffer": {"dtype": "float32", "len": 4}}}});
    fs::write(&launch, file.to_string()).expect("write");
    let out = tirproof(&["run", "--ptx", &show(&ptx), "--launch", &show(&launch)]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("seed 7 (random buffers); replay: --seed 7"), "{text}");
    assert!(text.contains("buffer `a` has 16 bytes, the kernel accesses bytes 64..68"), "{text}");
    assert!(text.contains("\nsource: kernel.cu:13:3\n"), "{text}");
}

const SCALAR_PROGRAM: &str = "# from tvm.script import tirx as T\n\n@T.prim_func\n\
    def main(A: T.Buffer((64,), \"float32\"), n: T.int32):\n    for i in T.serial(n):\n        A[i] = A[i] + T.float32(1.0)\n";

#[test]
fn a_run_says_its_seed_and_random_scalars_in_a_form_that_replays_them() {
    let dir = scratch();
    let program = dir.path().join("scalar.py");
    fs::write(&program, SCALAR_PROGRAM).expect("write");
    let first = tirproof(&["run", &show(&program), "--seed", "5"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let text = stderr(&first);
    let replay =
        text.lines().find_map(|l| l.split_once("replay: ").map(|(_, r)| r.to_string())).expect("a replay line");
    assert!(replay.starts_with("--seed 5 --arg n="), "{text}");
    assert!(text.contains("random scalars: n = "), "{text}");
    let mut args = vec!["run".to_string(), show(&program)];
    args.extend(replay.split(' ').map(str::to_string));
    let again = tirproof(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(again.stdout, first.stdout, "the replay computes the same");
    assert!(stderr(&again).contains("replay: --seed 5\n"), "no scalar left to draw: {}", stderr(&again));
}
