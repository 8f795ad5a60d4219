//! cargo-fuzz target `parse` (see `tirproof_fuzz::targets::parse`): `cargo fuzz run parse`.
//! Built without cargo-fuzz it replays the inputs named on its command line instead.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tirproof_fuzz::targets::parse(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    tirproof_fuzz::targets::replay_main("parse", tirproof_fuzz::targets::parse)
}
