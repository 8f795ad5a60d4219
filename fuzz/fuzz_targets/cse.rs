//! cargo-fuzz target `cse` (see `tirproof_fuzz::targets::cse`): `cargo fuzz run cse`.
//! Built without cargo-fuzz it replays the inputs named on its command line instead.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tirproof_fuzz::targets::cse(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    tirproof_fuzz::targets::replay_main("cse", tirproof_fuzz::targets::cse)
}
