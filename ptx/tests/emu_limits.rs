//! What the emulator bounds that no instruction count sees: groups committed and not yet
//! waited for (a loop of empty commits), and the setup of each block's `.shared` and
//! `.local` arrays, which is charged to the fuel.

use tirproof_machine::fault::FaultKind;
use tirproof_machine::limit::Limit;
use tirproof_machine::ExecError;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuError, EmuOutcome, EmuResult};
use tirproof_ptx::parse::parse;

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n";

fn run(body: &str, grid: u32, block: u32, fuel: u64) -> Result<EmuResult, EmuError> {
    let text = format!("{HEADER}{body}}}\n");
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.grid = [grid, 1, 1];
    kernel.launch.block = [block, 1, 1];
    let config = EmuConfig { fuel, ..EmuConfig::default() };
    run_kernel(&kernel, Some(&parsed.lines[0]), &[], &config)
}

#[test]
fn a_loop_of_empty_commits_stops_at_the_bound_on_groups_in_flight_at_its_line() {
    // Line 7 is the label, line 8 the commit.
    let body = "$L1:\n\tcp.async.commit_group;\n\tbra $L1;\n";
    match run(body, 1, 1, EmuConfig::default().fuel) {
        Err(EmuError::Machine(ExecError::LimitExceeded { line, limit })) => {
            assert_eq!((line, limit), (8, Limit::GroupsInFlight));
        }
        other => panic!("{other:?}"),
    }
    // The same loop with a wait in it holds one group at a time and runs until the fuel ends.
    let body = "$L1:\n\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tbra $L1;\n";
    let result = run(body, 1, 1, 4 * Limit::GroupsInFlight.max() as u64).expect("runs");
    match result.outcome {
        EmuOutcome::Fault(fault) => assert_eq!(fault.kind, FaultKind::FuelExhausted),
        other => panic!("{other:?}"),
    }
}

#[test]
fn setting_up_blocks_is_charged_one_unit_of_fuel_per_byte_of_their_arrays() {
    // 4096 shared bytes and 32 threads of 1024 local bytes: 36,864 bytes per block, and one
    // instruction per thread.
    let body = "\t.shared .align 4 .b8 tile[4096];\n\t.local .align 4 .b8 scratch[1024];\n\tret;\n";
    let per_block = 4096 + 32 * 1024;
    let completed = run(body, 10, 32, 10 * (per_block + 32)).expect("runs");
    assert_eq!(completed.outcome, EmuOutcome::Completed);
    assert_eq!(completed.instructions, 10 * 32, "setup is not counted as instructions");
    let result = run(body, 100, 32, 1_000_000).expect("runs");
    let EmuOutcome::Fault(fault) = result.outcome else { panic!("{:?}", result.outcome) };
    assert_eq!(fault.kind, FaultKind::FuelExhausted);
    assert!(fault.message.contains("setting up a block") && fault.message.contains("36864 bytes"), "{fault}");
    // 27 blocks fit in the budget (27 * 36,896 = 996,192), the 28th does not.
    assert_eq!(result.instructions, 27 * 32);
    assert!(fault.thread.contains(&("blockIdx.x".to_string(), 27)), "{fault}");
}
