//! cargo-fuzz target `ptx` (see `tirproof_fuzz::targets::ptx`): `cargo fuzz run ptx`.
//! Built without cargo-fuzz it replays the inputs named on its command line instead.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tirproof_fuzz::targets::ptx(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    tirproof_fuzz::targets::replay_main("ptx", tirproof_fuzz::targets::ptx)
}
