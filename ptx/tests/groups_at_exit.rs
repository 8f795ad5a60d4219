//! Groups in flight when a thread exits: `cuda_pipeline.h`'s idiom commits a group every
//! iteration, empty in the last ones, and ends without a final wait, which is no fault; a
//! group that holds a copy at the exit is an `UnwaitedGroup` that says how many copies and
//! from which line.

use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_machine::fault::{Fault, FaultKind};
use tirproof_machine::{Schedule, Tensor};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::parse::parse;

/// Threads of the block; iterations of the loop.
const THREADS: usize = 32;
const STEPS: usize = 4;
/// The PTX lines of the copy in the loop and of its commit.
const COPY_LINE: u32 = 35;
const COMMIT_LINE: u32 = 36;

/// Two stages: copy 0 before the loop; iteration `k` copies `k + 1` (while `k + 1 < copies`)
/// into the other slot, commits (an empty group once the copies end), waits for all but the
/// newest group, reads slot `k % 2` into `out[k]` between barriers. No wait after the loop.
const KERNEL: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry pipeline(
\t.param .u64 k_in,
\t.param .u64 k_out,
\t.param .u32 k_copies
)
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<10>;
\t.shared .align 16 .b8 s[256];
\tld.param.u64 %rd1, [k_in];
\tld.param.u64 %rd2, [k_out];
\tld.param.u32 %r10, [k_copies];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, s;
\tshl.b32 %r3, %r1, 2;
\tadd.s32 %r4, %r2, %r3;
\tmul.wide.u32 %rd3, %r1, 4;
\tadd.s64 %rd4, %rd1, %rd3;
\tcp.async.ca.shared.global [%r4], [%rd4], 4;
\tcp.async.commit_group;
\tmov.u32 %r5, 0;
$L_loop:
\tadd.s32 %r6, %r5, 1;
\tsetp.lt.u32 %p1, %r6, %r10;
\tand.b32 %r7, %r6, 1;
\tshl.b32 %r8, %r7, 7;
\tadd.s32 %r9, %r4, %r8;
\tmul.wide.u32 %rd5, %r6, 128;
\tadd.s64 %rd6, %rd4, %rd5;
\t@%p1 cp.async.ca.shared.global [%r9], [%rd6], 4;
\tcp.async.commit_group;
\tcp.async.wait_group 1;
\tbar.sync 0;
\tand.b32 %r11, %r5, 1;
\tshl.b32 %r12, %r11, 7;
\tadd.s32 %r13, %r4, %r12;
\tld.shared.u32 %r14, [%r13];
\tmul.wide.u32 %rd7, %r5, 128;
\tadd.s64 %rd8, %rd2, %rd3;
\tadd.s64 %rd9, %rd8, %rd7;
\tst.global.u32 [%rd9], %r14;
\tbar.sync 0;
\tadd.s32 %r5, %r5, 1;
\tsetp.lt.u32 %p2, %r5, 4;
\t@%p2 bra $L_loop;
\tret;
}
";

/// Runs the kernel copying `copies` tiles of its input: the output, or the fault.
fn run(copies: u32, schedule: Schedule, order: Option<u64>) -> Result<Vec<i64>, Box<Fault>> {
    let parsed = parse(KERNEL).unwrap_or_else(|e| panic!("{e:?}"));
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.block = [THREADS as u32, 1, 1];
    let u32s = DataType::new(TypeCode::UInt, 32, 1);
    let values: Vec<i64> = (0..(THREADS * (STEPS + 1)) as i64).map(|v| v + 1000).collect();
    let input = Tensor::from_i64(u32s, vec![values.len()], &values).expect("a tensor");
    let out = Tensor::zeros(u32s, vec![THREADS * STEPS]).expect("a tensor");
    let args = [KernelArg::Buffer(input), KernelArg::Buffer(out), KernelArg::Scalar(u64::from(copies))];
    let config = EmuConfig { schedule, thread_order_seed: order, ..EmuConfig::default() };
    let result = run_kernel(&kernel, Some(&parsed.lines[0]), &args, &config).expect("runs");
    match result.outcome {
        EmuOutcome::Completed => Ok(result.buffers[1].as_ref().expect("the output").to_i64_vec()),
        EmuOutcome::Fault(fault) => Err(fault),
    }
}

const SCHEDULES: [Schedule; 3] = [Schedule::Lazy, Schedule::Eager, Schedule::Random(5)];

#[test]
fn the_pipeline_idiom_ends_with_empty_groups_in_flight_and_runs_clean() {
    let expected: Vec<i64> = (0..(THREADS * STEPS) as i64).map(|v| v + 1000).collect();
    for schedule in SCHEDULES {
        for order in [None, Some(3)] {
            let out = run(STEPS as u32, schedule, order).unwrap_or_else(|f| panic!("{schedule} {order:?}: {f}"));
            assert_eq!(out, expected, "{schedule} {order:?}");
        }
    }
}

#[test]
fn a_group_holding_a_copy_at_the_exit_is_an_unwaited_group_naming_the_copy() {
    // One copy more than the loop reads: the last iteration's group holds it at the exit.
    for schedule in SCHEDULES {
        let fault = run(STEPS as u32 + 1, schedule, None).expect_err("a fault");
        assert_eq!(fault.kind, FaultKind::UnwaitedGroup, "{schedule}: {fault}");
        let expected = format!(
            "the thread exits with group {STEPS} (committed at line {COMMIT_LINE}) never waited for, holding 4 bytes of \
             cp.async copies, the first issued at line {COPY_LINE}"
        );
        assert!(fault.message.starts_with(&expected), "{schedule}: {}", fault.message);
    }
}
