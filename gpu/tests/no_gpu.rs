//! What a machine without a usable GPU sees: a typed [`GpuError::NoGpu`] with the reason and a
//! message that says "no GPU", never a panic. `TIRPROOF_GPU=off` makes any machine such a
//! machine. [`gpu`] keeps its first answer for the process, so the switch is tested on
//! [`Gpu::open`], and the process's answer only for being a typed, stable one.

use tirproof_gpu::{gpu, unavailable, Gpu, GpuError, GPU_SWITCH};

#[test]
fn turned_off_the_runner_says_no_gpu_with_the_reason() {
    std::env::set_var(GPU_SWITCH, "off");
    let error = Gpu::open().expect_err("turned off");
    match &error {
        GpuError::NoGpu { reason } => assert!(reason.contains("TIRPROOF_GPU=off"), "{reason}"),
        other => panic!("expected NoGpu, got {other:?}"),
    }
    assert!(error.to_string().starts_with("no GPU: "), "{error}");
}

#[test]
fn the_process_gpu_is_asked_once_and_answers_the_same_every_time() {
    let first = gpu().map(|g| g.name().to_string());
    let second = gpu().map(|g| g.name().to_string());
    assert_eq!(first, second);
    match unavailable() {
        Some(GpuError::NoGpu { reason }) => println!("no GPU here ({reason}): the runner says so"),
        Some(other) => panic!("the absence of a GPU must be NoGpu, not {other:?}"),
        None => println!("a GPU is present: {}", first.expect("a GPU")),
    }
}
