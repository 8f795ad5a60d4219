//! cargo-fuzz target `foreign` (see `tirproof_fuzz::targets::foreign`): `cargo fuzz run foreign`.
//! Built without cargo-fuzz it replays the inputs named on its command line instead.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tirproof_fuzz::targets::foreign(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    tirproof_fuzz::targets::replay_main("foreign", tirproof_fuzz::targets::foreign)
}
