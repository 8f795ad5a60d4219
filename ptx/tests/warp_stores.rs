//! Stores by lanes of one warp to one address: one execution of one `st` by lanes of a warp
//! is one warp store (equal values: no fault; different values: a `WarpStoreConflict` naming
//! both lanes and values); lanes of different warps, different instructions, or different
//! executions of one instruction (loop iterations) race as any threads do.

use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_machine::fault::{Fault, FaultKind};
use tirproof_machine::Tensor;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::parse::parse;

/// Line of the first instruction of the part `stores` puts in `kernel_text`.
const FIRST_STORE_LINE: u32 = 17;

/// A kernel whose threads run `stores` (with `%r1` = the thread's index, `%r2` = the address
/// of the shared word `s`, `%r3` = 7), then after a barrier each copy `s` to its word of the
/// output.
fn kernel_text(stores: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_out\n)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<4>;\n\t.shared .align 4 .b8 s[4];\n\
         \tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, s;\n\tmov.u32 %r3, 7;\n\
         {stores}\tbar.sync 0;\n\tld.shared.u32 %r5, [%r2];\n\tmul.wide.u32 %rd2, %r1, 4;\n\
         \tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r5;\n\tret;\n}}\n"
    )
}

/// Runs `stores` in a block of `threads` threads, in order or permuted by `order`: the
/// output, or the fault.
fn run(stores: &str, threads: u32, order: Option<u64>) -> Result<Vec<i64>, Box<Fault>> {
    let text = kernel_text(stores);
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.block = [threads, 1, 1];
    let out = Tensor::zeros(DataType::new(TypeCode::UInt, 32, 1), vec![threads as usize]).expect("a tensor");
    let config = EmuConfig { thread_order_seed: order, ..EmuConfig::default() };
    let result = run_kernel(&kernel, Some(&parsed.lines[0]), &[KernelArg::Buffer(out)], &config).expect("runs");
    match result.outcome {
        EmuOutcome::Completed => Ok(result.buffers[0].as_ref().expect("the output").to_i64_vec()),
        EmuOutcome::Fault(fault) => Err(fault),
    }
}

/// The fault of `stores` in every thread order tried.
fn faults(stores: &str, threads: u32) -> Vec<Fault> {
    [None, Some(1), Some(2), Some(3)]
        .into_iter()
        .map(|order| *run(stores, threads, order).expect_err(&format!("a fault in order {order:?}")))
        .collect()
}

#[test]
fn lanes_of_one_warp_storing_one_value_to_one_address_run_clean() {
    // Triton's reduction epilogue: 16 lanes store one partial result to one word.
    let stores = "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 st.shared.u32 [%r2], %r3;\n";
    for order in [None, Some(1), Some(2)] {
        assert_eq!(run(stores, 32, order).expect("clean"), vec![7; 32], "order {order:?}");
    }
    // Every lane of both warps of a block, each warp in its own epoch.
    let stores = "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 st.shared.u32 [%r2], %r3;\n\tbar.sync 0;\n\
                  \t@!%p1 st.shared.u32 [%r2], %r3;\n";
    assert_eq!(run(stores, 64, Some(4)).expect("clean"), vec![7; 64]);
}

#[test]
fn lanes_of_one_warp_storing_different_values_are_a_warp_store_conflict() {
    let stores = "\tsetp.lt.u32 %p1, %r1, 16;\n\tadd.u32 %r4, %r1, 0x100;\n\t@%p1 st.shared.u32 [%r2], %r4;\n";
    for fault in faults(stores, 32) {
        assert_eq!(fault.kind, FaultKind::WarpStoreConflict, "{fault}");
        assert_eq!(fault.span.line, FIRST_STORE_LINE + 2);
        let m = &fault.message;
        assert!(m.starts_with("nondeterministic warp store to .shared s[byte 0]: lanes "), "{m}");
        assert!(m.contains("of warp 0 store different values in one execution of this instruction"), "{m}");
        assert!(m.contains("at `@%p1 st.shared.u32 [%r2], %r4;`"), "the instruction: {m}");
        // Both lanes and both values: each lane's value is 0x100 + its index.
        let lanes: Vec<u32> = m
            .split("lanes ")
            .nth(1)
            .and_then(|rest| rest.split(" of warp").next())
            .map(|pair| pair.split(" and ").filter_map(|n| n.parse().ok()).collect())
            .unwrap_or_default();
        assert_eq!(lanes.len(), 2, "{m}");
        for lane in lanes {
            assert!(m.contains(&format!("{:#x} by lane {lane}", 0x100 + lane)), "{m}");
        }
    }
}

#[test]
fn lanes_of_different_warps_still_race() {
    // One value: a redundant store; a value per warp: a race.
    let one = "\tsetp.lt.u32 %p1, %r1, 40;\n\t@%p1 st.shared.u32 [%r2], %r3;\n";
    assert!(faults(one, 64).iter().all(|f| f.kind == FaultKind::RedundantStore));
    let per_warp = "\tsetp.lt.u32 %p1, %r1, 40;\n\tshr.u32 %r4, %r1, 5;\n\t@%p1 st.shared.u32 [%r2], %r4;\n";
    for fault in faults(per_warp, 64) {
        assert_eq!(fault.kind, FaultKind::CrossThreadRace, "{fault}");
    }
}

#[test]
fn lanes_storing_at_different_instructions_still_race() {
    // Lanes 0-7 store 1 at one instruction, lanes 8-31 store 2 at the next.
    let stores = "\tsetp.lt.u32 %p1, %r1, 8;\n\tselp.u32 %r4, 1, 2, %p1;\n\t@%p1 st.shared.u32 [%r2], %r4;\n\
                  \t@!%p1 st.shared.u32 [%r2], %r4;\n";
    assert!(faults(stores, 32).iter().all(|f| f.kind == FaultKind::CrossThreadRace));
    let one = "\tsetp.lt.u32 %p1, %r1, 8;\n\t@%p1 st.shared.u32 [%r2], %r3;\n\t@!%p1 st.shared.u32 [%r2], %r3;\n";
    assert!(faults(one, 32).iter().all(|f| f.kind == FaultKind::RedundantStore));
}

#[test]
fn lanes_storing_in_different_iterations_still_race() {
    // Lane `i` stores in iteration `i` (of two): the same instruction, different executions.
    let looped = |value: &str| {
        format!(
            "\tmov.u32 %r6, 0;\n$L_loop:\n\tsetp.eq.u32 %p1, %r6, %r1;\n\t@%p1 st.shared.u32 [%r2], {value};\n\
             \tadd.u32 %r6, %r6, 1;\n\tsetp.lt.u32 %p2, %r6, 2;\n\t@%p2 bra $L_loop;\n"
        )
    };
    assert!(faults(&looped("%r1"), 32).iter().all(|f| f.kind == FaultKind::CrossThreadRace));
    assert!(faults(&looped("%r3"), 32).iter().all(|f| f.kind == FaultKind::RedundantStore));
    // Lanes that diverged: lane 1 enters the loop at its second iteration, where lanes 0
    // and 1 store, so each arrives there a different number of times: a race as before.
    let diverged = "\tsetp.eq.u32 %p1, %r1, 1;\n\tselp.u32 %r6, 1, 0, %p1;\n\tsetp.lt.u32 %p2, %r1, 2;\n\
                    \tselp.u32 %r8, 0, 100, %p2;\n$L_loop:\n\tadd.u32 %r7, %r6, %r8;\n\tsetp.eq.u32 %p3, %r7, 1;\n\
                    \t@%p3 st.shared.u32 [%r2], %r3;\n\tadd.u32 %r6, %r6, 1;\n\tsetp.lt.u32 %p2, %r6, 2;\n\
                    \t@%p2 bra $L_loop;\n";
    assert!(faults(diverged, 32).iter().all(|f| f.kind == FaultKind::RedundantStore));
}
