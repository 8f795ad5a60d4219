//! Hopper's TMA in the emulator, on small hand-written kernels: a tensor map built on the
//! device (`tensormap.replace` in shared memory, `tensormap.cp_fenceproxy` to a global scratch
//! buffer), a 2d box loaded through it on an mbarrier (zero-filled outside the tensor, with and
//! without swizzling), a box stored back through the bulk async-group queue, and each misuse
//! the model reports: a read before the wait, a wrong parity, a missing `expect_tx`, an arrival
//! that never comes (a deadlock, not a hang), a store's source written before
//! `cp.async.bulk.wait_group.read`, and a result read before `cp.async.bulk.wait_group`.

use tirproof_ir::dtype::DataType;
use tirproof_machine::fault::{Fault, FaultKind};
use tirproof_machine::{Schedule, Tensor};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, EmuResult, KernelArg};
use tirproof_ptx::module::print;
use tirproof_ptx::parse::parse;

/// Columns of the tensor (one 128-byte row of f32) and its rows; the box is 32 x 8 from row 0,
/// so rows 6 and 7 are outside the tensor.
const COLS: usize = 32;
const ROWS: usize = 6;
const BOX_ROWS: usize = 8;
const BOX_BYTES: usize = COLS * BOX_ROWS * 4;

/// How the kernel waits for the load.
#[derive(Clone, Copy)]
enum Wait {
    /// A `try_wait.parity` spin loop in an inline-assembly block, on `parity`.
    Parity(u32),
    /// No wait at all.
    None,
}

/// The pieces that vary between the kernels of the tests.
#[derive(Clone, Copy)]
struct Variant {
    swizzle: u32,
    wait: Wait,
    /// Arrivals the mbarrier expects (only thread 0 arrives).
    count: u32,
    /// Whether thread 0's arrival expects the copy's bytes.
    expect_tx: bool,
    /// Store the box back to `c` through the bulk queue (else every thread copies its column).
    store: Option<StoreVariant>,
}

#[derive(Clone, Copy, PartialEq)]
enum StoreVariant {
    /// `commit_group`, `wait_group.read 0`, then thread 0 overwrites the tile, `wait_group 0`.
    Proper,
    /// Thread 0 writes the tile before `wait_group.read`.
    SourceWrittenEarly,
    /// Thread 0 reads the result in global memory before `wait_group`.
    ResultReadEarly,
}

const GOOD: Variant = Variant { swizzle: 0, wait: Wait::Parity(0), count: 1, expect_tx: true, store: None };

fn kernel_text(v: Variant) -> String {
    let wait = match v.wait {
        Wait::Parity(p) => format!(
            "\t{{\n\t.reg .pred complete;\n\twaitLoop:\n\tmbarrier.try_wait.parity.shared::cta.b64 complete, [%r5], {p};\n\
             \t@!complete bra.uni waitLoop;\n\t}}\n"
        ),
        Wait::None => String::new(),
    };
    let arrive = if v.expect_tx {
        format!("\t@!%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], {BOX_BYTES};\n")
    } else {
        "\t@!%p1 mbarrier.arrive.shared::cta.b64 _, [%r5];\n".to_string()
    };
    let consume = match v.store {
        None => format!(
            // Each thread copies its column of every box row: the tile address of (row, col)
            // swizzled as the map's mode lays it out.
            "\tmov.b32 %r10, 0;\n$L__row:\n\tmad.lo.s32 %r11, %r10, 128, %r3;\n\tadd.s32 %r12, %r6, %r11;\n\
             \tshr.u32 %r13, %r12, 7;\n\tand.b32 %r13, %r13, {mask};\n\tshl.b32 %r13, %r13, 4;\n\
             \txor.b32 %r12, %r12, %r13;\n\tld.shared.f32 %f1, [%r12];\n\tmad.lo.s32 %r14, %r10, {COLS}, %r1;\n\
             \tmul.wide.s32 %rd7, %r14, 4;\n\tadd.s64 %rd8, %rd6, %rd7;\n\tst.global.f32 [%rd8], %f1;\n\
             \tadd.s32 %r10, %r10, 1;\n\tsetp.lt.s32 %p2, %r10, {BOX_ROWS};\n\t@%p2 bra $L__row;\n",
            mask = [0, 1, 3, 7][v.swizzle as usize]
        ),
        Some(store) => {
            let early_write =
                if store == StoreVariant::SourceWrittenEarly { "\t@!%p1 st.shared.b32 [%r6], %r0;\n" } else { "" };
            let early_read =
                if store == StoreVariant::ResultReadEarly { "\t@!%p1 ld.global.f32 %f2, [%rd6];\n" } else { "" };
            let late_write = if store == StoreVariant::Proper { "\t@!%p1 st.shared.b32 [%r6], %r0;\n" } else { "" };
            format!(
                // The map's address is C's now: thread 0 sets it and copies the map again.
                "\tbar.sync 0;\n\t@!%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd2], %rd6;\n\
                 \tbar.warp.sync -1;\n\
                 \ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
                 [%rd3], [%rd4], 128;\n\
                 \tfence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;\n\tbar.sync 0;\n\
                 \t@!%p1 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd3, {{%r7, %r8}}], [%r6];\n\
                 \tcp.async.bulk.commit_group;\n{early_write}{early_read}\tcp.async.bulk.wait_group.read 0;\n\
                 {late_write}\tcp.async.bulk.wait_group 0;\n"
            )
        }
    };
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n\n.extern .shared .align 1024 .b8 smem[];\n\n\
         .visible .entry k(\n\t.param .u64 k_a,\n\t.param .u64 k_c,\n\t.param .u64 k_scratch\n)\n.reqntid 32\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<10>;\n\t.reg .f32 %f<4>;\n\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.b32 %r2, smem;\n\tshl.b32 %r3, %r1, 2;\n\tadd.s32 %r4, %r2, %r3;\n\
         \tmov.b32 %r0, 0;\n\tst.shared::cta.b32 [%r4], %r0;\n\tbar.warp.sync -1;\n\
         \tsetp.ne.s32 %p1, %r1, 0;\n\tcvt.u64.u32 %rd2, %r2;\n\t@%p1 bra $L__mapped;\n\
         \tld.param.u64 %rd1, [k_a];\n\
         \ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd2], %rd1;\n\
         \ttensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd2], 1;\n\
         \ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd2], 0, {COLS};\n\
         \ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd2], 1, {BOX_ROWS};\n\
         \ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd2], 0, {COLS};\n\
         \ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%rd2], 1, {ROWS};\n\
         \ttensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%rd2], 0, 128;\n\
         \ttensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd2], 0, 1;\n\
         \ttensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%rd2], 1, 1;\n\
         \ttensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%rd2], 7;\n\
         \ttensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%rd2], {swizzle};\n\
         $L__mapped:\n\tbar.warp.sync -1;\n\tld.param.u64 %rd3, [k_scratch];\n\tcvta.global.u64 %rd3, %rd3;\n\
         \tcvt.u64.u32 %rd4, %r2;\n\
         \ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd3], [%rd4], 128;\n\
         \tfence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;\n\tbar.sync 0;\n\
         \tadd.s32 %r5, %r2, 128;\n\t@!%p1 mbarrier.init.shared::cta.b64 [%r5], {count};\n\tbar.sync 0;\n\
         \tadd.s32 %r6, %r2, 1024;\n\tmov.b32 %r7, 0;\n\tmov.b32 %r8, 0;\n{arrive}\
         \t@!%p1 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%r6], [%rd3, {{%r7, %r8}}], [%r5];\n\
         {wait}\tld.param.u64 %rd6, [k_c];\n{consume}\tret;\n}}\n",
        swizzle = v.swizzle,
        count = v.count,
    )
}

fn input() -> Vec<f64> {
    (0..COLS * ROWS).map(|i| (i as f64) * 0.5 - 7.0).collect()
}

fn expected() -> Vec<f64> {
    let a = input();
    (0..COLS * BOX_ROWS).map(|i| if i < COLS * ROWS { a[i] } else { 0.0 }).collect()
}

fn run(v: Variant, schedule: Schedule, order: Option<u64>) -> EmuResult {
    let text = kernel_text(v);
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.dynamic_shared = 2048;
    let a = Tensor::from_f64(DataType::FLOAT32, vec![COLS * ROWS], &input()).unwrap();
    let c = Tensor::from_f64(DataType::FLOAT32, vec![COLS * BOX_ROWS], &vec![0.0; COLS * BOX_ROWS]).unwrap();
    let scratch = Tensor::from_i64(DataType::INT8, vec![128], &[0; 128]).unwrap();
    let args = [KernelArg::Buffer(a), KernelArg::Buffer(c), KernelArg::Buffer(scratch)];
    let config = EmuConfig { schedule, thread_order_seed: order, ..EmuConfig::default() };
    run_kernel(&kernel, Some(&parsed.lines[0]), &args, &config).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn fault_of(result: EmuResult) -> Box<Fault> {
    match result.outcome {
        EmuOutcome::Fault(fault) => fault,
        EmuOutcome::Completed => panic!("completed; expected a fault"),
    }
}

const SCHEDULES: [Schedule; 4] = [Schedule::Lazy, Schedule::Eager, Schedule::Random(1), Schedule::Random(7)];

#[test]
fn a_box_loads_through_a_device_built_map_equal_to_the_tensor_under_every_schedule_and_order() {
    for swizzle in [0, 3] {
        for schedule in SCHEDULES {
            for order in [None, Some(5)] {
                let result = run(Variant { swizzle, ..GOOD }, schedule, order);
                assert_eq!(result.outcome, EmuOutcome::Completed, "swizzle {swizzle} {schedule:?} {order:?}");
                let c = result.buffers[1].as_ref().unwrap().to_f64_vec();
                assert_eq!(c, expected(), "swizzle {swizzle} {schedule:?} {order:?}");
            }
        }
    }
}

#[test]
fn a_swizzled_box_read_without_unswizzling_differs() {
    // The kernel reads with the 128-byte pattern; the map says no swizzle: rows past the
    // first land elsewhere, so the copy is not the identity (the swizzle is really applied).
    let text = kernel_text(Variant { swizzle: 3, ..GOOD })
        .replace("swizzle_mode.shared::cta.b1024.b32 [%rd2], 3;", "swizzle_mode.shared::cta.b1024.b32 [%rd2], 0;");
    let parsed = parse(&text).unwrap();
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.dynamic_shared = 2048;
    let a = Tensor::from_f64(DataType::FLOAT32, vec![COLS * ROWS], &input()).unwrap();
    let c = Tensor::from_f64(DataType::FLOAT32, vec![COLS * BOX_ROWS], &vec![0.0; COLS * BOX_ROWS]).unwrap();
    let scratch = Tensor::from_i64(DataType::INT8, vec![128], &[0; 128]).unwrap();
    let args = [KernelArg::Buffer(a), KernelArg::Buffer(c), KernelArg::Buffer(scratch)];
    let result = run_kernel(&kernel, Some(&parsed.lines[0]), &args, &EmuConfig::default()).unwrap();
    assert_eq!(result.outcome, EmuOutcome::Completed);
    assert_ne!(result.buffers[1].as_ref().unwrap().to_f64_vec(), expected());
}

#[test]
fn inline_blocks_print_back_as_valid_ptx_that_parses_to_the_same_module() {
    let text = kernel_text(GOOD);
    let module = parse(&text).unwrap().module;
    let printed = print(&module).unwrap();
    assert!(printed.contains(".version 8.6\n.target sm_90a"), "{printed}");
    assert!(!printed.contains(" complete,") && !printed.contains("waitLoop"), "{printed}");
    let again = parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}")).module;
    assert_eq!(print(&again).unwrap(), printed);
}

#[test]
fn blocks_have_their_own_registers_and_labels() {
    // Two blocks each define `waitLoop` and a `complete` predicate; the kernel's %p0 is not
    // the block's, and an unclosed block is an error with a position.
    let body = "\t.reg .pred %p<1>;\n\t.reg .b32 %r<2>;\n\tsetp.eq.s32 %p0, %r0, 0;\n\
                \t{\n\t.reg .pred complete;\n\t.reg .b32 %r<1>;\n\twaitLoop:\n\tmov.b32 %r0, 5;\n\
                \tsetp.ne.s32 complete, %r0, 5;\n\t@complete bra waitLoop;\n\t}\n\
                \t{\n\t.reg .pred complete;\n\twaitLoop:\n\tsetp.ne.s32 complete, %r0, 0;\n\t@complete bra waitLoop;\n\t}\n\
                \tret;\n";
    let text = format!(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n{body}}}\n");
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let printed = print(&parsed.module).unwrap();
    // The block's %r0 is a fresh %r2; the kernel's %r0 stays 0, so the second block exits.
    assert!(printed.contains("mov.b32 %r2, 5;"), "{printed}");
    assert!(printed.contains("setp.ne.s32 %p1, %r2, 5;") && printed.contains("setp.ne.s32 %p2, %r0, 0;"), "{printed}");
    let result = run_kernel(&parsed.module.kernels[0], Some(&parsed.lines[0]), &[], &EmuConfig::default()).unwrap();
    assert_eq!(result.outcome, EmuOutcome::Completed);
    let unclosed =
        ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t{\n\tret;\n}\n".to_string();
    assert!(parse(&unclosed).is_err());
    let twice = text.replacen("\twaitLoop:\n", "\twaitLoop:\n\twaitLoop:\n", 1);
    let error = parse(&twice).expect_err("a label twice in one block");
    assert!(error.message.contains("defined twice in one block") && error.line == 13, "{error}");
}

#[test]
fn reading_the_box_without_waiting_faults_naming_the_copy_and_its_mbarrier() {
    let fault = fault_of(run(Variant { wait: Wait::None, ..GOOD }, Schedule::Lazy, None));
    assert_eq!(fault.kind, FaultKind::ReadPendingAsync, "{fault}");
    for part in
        ["cp.async.bulk.tensor at line", "(queue TMA)", "is pending", "mbarrier at", "has not waited on an mbarrier"]
    {
        assert!(fault.message.contains(part), "{part}: {fault}");
    }
}

#[test]
fn a_wait_on_the_wrong_parity_returns_at_once_and_the_read_faults() {
    let fault = fault_of(run(Variant { wait: Wait::Parity(1), ..GOOD }, Schedule::Lazy, None));
    assert_eq!(fault.kind, FaultKind::ReadPendingAsync, "{fault}");
    assert!(fault.message.contains("last mbarrier wait was `mbarrier.try_wait.parity"), "{fault}");
}

#[test]
fn an_arrival_without_expect_tx_completes_the_phase_before_the_copy_lands() {
    for schedule in SCHEDULES {
        let fault = fault_of(run(Variant { expect_tx: false, ..GOOD }, schedule, None));
        assert!(
            matches!(fault.kind, FaultKind::ReadPendingAsync | FaultKind::CrossThreadRace),
            "{schedule:?}: {fault}"
        );
        assert!(fault.message.contains("cp.async.bulk.tensor at line"), "{fault}");
    }
}

#[test]
fn a_missing_arrival_is_a_deadlock_not_a_hang() {
    for order in [None, Some(3)] {
        let fault = fault_of(run(Variant { count: 2, ..GOOD }, Schedule::Lazy, order));
        assert_eq!(fault.kind, FaultKind::BarrierDivergence, "{fault}");
        assert!(fault.message.contains("deadlock") && fault.message.contains("1 of 2 arrivals missing"), "{fault}");
    }
}

#[test]
fn a_box_stores_back_through_the_bulk_queue() {
    for schedule in SCHEDULES {
        let result = run(Variant { store: Some(StoreVariant::Proper), ..GOOD }, schedule, Some(9));
        assert_eq!(result.outcome, EmuOutcome::Completed, "{schedule:?}");
        // Only the tensor's rows are stored: the box's rows 6 and 7 are outside it (C is
        // described by A's map, 6 rows), so C keeps its zeros there.
        assert_eq!(result.buffers[1].as_ref().unwrap().to_f64_vec(), expected(), "{schedule:?}");
    }
}

#[test]
fn writing_a_stores_source_before_wait_group_read_faults_naming_the_store_and_queue() {
    let fault = fault_of(run(Variant { store: Some(StoreVariant::SourceWrittenEarly), ..GOOD }, Schedule::Lazy, None));
    assert_eq!(fault.kind, FaultKind::CrossThreadRace, "{fault}");
    for part in ["bulk tensor store at line", "bulk async-group queue", "wait_group.read"] {
        assert!(fault.message.contains(part), "{part}: {fault}");
    }
}

#[test]
fn reading_a_stores_result_before_wait_group_faults() {
    let fault = fault_of(run(Variant { store: Some(StoreVariant::ResultReadEarly), ..GOOD }, Schedule::Lazy, None));
    assert_eq!(fault.kind, FaultKind::ReadPendingAsync, "{fault}");
    assert!(fault.message.contains("bulk tensor store at line") && fault.message.contains("wait_group (not .read)"));
    assert!(fault.message.contains("is pending"), "{fault}");
}

#[test]
fn a_store_never_waited_is_a_finding_and_an_empty_group_is_not() {
    let text = kernel_text(Variant { store: Some(StoreVariant::Proper), ..GOOD })
        .replace("\tcp.async.bulk.wait_group 0;\n", "\tcp.async.bulk.commit_group;\n");
    let parsed = parse(&text).unwrap();
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.dynamic_shared = 2048;
    let a = Tensor::from_f64(DataType::FLOAT32, vec![COLS * ROWS], &input()).unwrap();
    let c = Tensor::from_f64(DataType::FLOAT32, vec![COLS * BOX_ROWS], &vec![0.0; COLS * BOX_ROWS]).unwrap();
    let scratch = Tensor::from_i64(DataType::INT8, vec![128], &[0; 128]).unwrap();
    let args = [KernelArg::Buffer(a), KernelArg::Buffer(c), KernelArg::Buffer(scratch)];
    let fault = fault_of(run_kernel(&kernel, Some(&parsed.lines[0]), &args, &EmuConfig::default()).unwrap());
    assert_eq!(fault.kind, FaultKind::UnwaitedGroup, "{fault}");
    assert!(fault.message.contains("bulk group 0") && fault.message.contains("thread exits"), "{fault}");
}

#[test]
fn a_map_field_never_set_is_named() {
    let text = kernel_text(GOOD).replace("\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd2], 1, 8;\n", "");
    let parsed = parse(&text).unwrap();
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.dynamic_shared = 2048;
    let a = Tensor::from_f64(DataType::FLOAT32, vec![COLS * ROWS], &input()).unwrap();
    let c = Tensor::from_f64(DataType::FLOAT32, vec![COLS * BOX_ROWS], &vec![0.0; COLS * BOX_ROWS]).unwrap();
    let scratch = Tensor::from_i64(DataType::INT8, vec![128], &[0; 128]).unwrap();
    let args = [KernelArg::Buffer(a), KernelArg::Buffer(c), KernelArg::Buffer(scratch)];
    let fault = fault_of(run_kernel(&kernel, Some(&parsed.lines[0]), &args, &EmuConfig::default()).unwrap());
    assert!(fault.message.contains("box_dim of dimension 1 was never set"), "{fault}");
}

/// The kernel of `v` with its map passed by the host (`.param .align 64 .b8 k_map[128]`)
/// instead of built on the device.
fn host_map_kernel_text(v: Variant, cvta: bool) -> String {
    let text = kernel_text(v).replace("\t.param .u64 k_scratch\n", "\t.param .align 64 .b8 k_map[128]\n");
    let (start, end) = (text.find("\tmov.b32 %r0, 0;\n").unwrap(), text.find("\tadd.s32 %r5").unwrap());
    let text = format!("{}\tsetp.ne.s32 %p1, %r1, 0;\n{}", &text[..start], &text[end..]);
    // The map's address in a register, as ptxas wants it (not the parameter's name itself),
    // taken directly or through `cvta.param` as nvcc writes it.
    let address =
        if cvta { "\tmov.b64 %rd8, k_map;\n\tcvta.param.u64 %rd9, %rd8;\n" } else { "\tmov.b64 %rd9, k_map;\n" };
    text.replace("\tmov.b32 %r7, 0;\n", &format!("{address}\tmov.b32 %r7, 0;\n"))
        .replace("[%rd3, {%r7, %r8}]", "[%rd9, {%r7, %r8}]")
}

#[test]
fn a_host_tensor_map_parameter_drives_the_copy_as_a_launch_file_describes_it() {
    use tirproof_ptx::launch_file::{LaunchFile, ParamSpec};
    for swizzle in [0u32, 3] {
        let text = host_map_kernel_text(Variant { swizzle, ..GOOD }, swizzle == 3);
        assert_eq!(text.contains("cvta.param.u64"), swizzle == 3);
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let printed = print(&parsed.module).unwrap();
        assert!(printed.contains(".param .align 64 .b8 k_map[128]"), "{printed}");
        let mut kernel = parsed.module.kernels[0].clone();
        kernel.launch.dynamic_shared = 2048;
        let launch = format!(
            r#"{{"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], "shared": 2048,
                "params": {{"k_a": {{"buffer": {{"dtype": "float32", "len": {}}}}}}},
                "tensor_maps": {{"k_map": {{"buffer": "k_a", "dtype": "float32", "dims": [{COLS}, {ROWS}],
                    "strides": [128], "box": [{COLS}, {BOX_ROWS}], "swizzle": {}}}}}}}"#,
            COLS * ROWS,
            [0, 32, 64, 128][swizzle as usize]
        );
        let file = LaunchFile::parse(&launch).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(matches!(file.params[0].1, ParamSpec::Buffer(_)));
        let map = &file.tensor_maps["k_map"];
        let a = Tensor::from_f64(DataType::FLOAT32, vec![COLS * ROWS], &input()).unwrap();
        let c = Tensor::from_f64(DataType::FLOAT32, vec![COLS * BOX_ROWS], &vec![0.0; COLS * BOX_ROWS]).unwrap();
        let args = [KernelArg::Buffer(a), KernelArg::Buffer(c), KernelArg::Buffer(map.tensor(&kernel).unwrap())];
        for schedule in SCHEDULES {
            let config = EmuConfig { schedule, ..EmuConfig::default() };
            let result = run_kernel(&kernel, Some(&parsed.lines[0]), &args, &config).unwrap();
            assert_eq!(result.outcome, EmuOutcome::Completed, "{schedule:?}");
            assert_eq!(result.buffers[1].as_ref().unwrap().to_f64_vec(), expected(), "swizzle {swizzle} {schedule:?}");
        }
        // A map that names no buffer parameter is refused when bound.
        let mut wrong = map.clone();
        wrong.buffer = "k_map".into();
        assert!(wrong.tensor(&kernel).unwrap_err().contains("no buffer parameter"));
    }
}

#[test]
fn elect_tokens_test_wait_and_explicit_transactions() {
    // Every thread arrives (token of phase 0); thread 0, elected, expects 16 bytes and
    // completes them itself; after a barrier every thread's test_wait on its token is true.
    let text = ".version 8.3\n.target sm_90a\n.address_size 64\n.extern .shared .align 16 .b8 smem[];\n\
        .visible .entry k(.param .u64 k_out)\n.reqntid 64\n{\n\t.reg .pred %p<5>;\n\t.reg .b32 %r<10>;\n\
        \t.reg .b64 %rd<6>;\n\tmov.b32 %r2, smem;\n\tmov.u32 %r1, %tid.x;\n\telect.sync %r3|%p1, -1;\n\
        \tsetp.lt.u32 %p4, %r1, 32;\n\tand.pred %p1, %p1, %p4;\n\
        \t@%p1 mbarrier.init.shared::cta.b64 [%r2], 64;\n\tbar.sync 0;\n\
        \t@%p1 mbarrier.expect_tx.shared::cta.b64 [%r2], 16;\n\tbar.sync 0;\n\
        \tmbarrier.arrive.release.cta.shared::cta.b64 %rd1, [%r2];\n\
        \tmbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd1;\n\
        \t@%p1 mbarrier.complete_tx.shared::cta.b64 [%r2], 16;\n\tbar.sync 0;\n\
        \tmbarrier.test_wait.acquire.cta.shared::cta.b64 %p3, [%r2], %rd1;\n\
        \tselp.u32 %r4, 10, 0, %p1;\n\tselp.u32 %r5, 1, 0, %p3;\n\tselp.u32 %r6, 100, 0, %p2;\n\
        \tmad.lo.s32 %r7, %r3, 1000, %r4;\n\tadd.s32 %r7, %r7, %r5;\n\tadd.s32 %r7, %r7, %r6;\n\
        \tld.param.u64 %rd2, [k_out];\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
        \tst.global.u32 [%rd4], %r7;\n\tret;\n}\n";
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mut kernel = parsed.module.kernels[0].clone();
    kernel.launch.dynamic_shared = 64;
    for order in [None, Some(11)] {
        let out = Tensor::from_i64(DataType::INT32, vec![64], &[0; 64]).unwrap();
        let config = EmuConfig { thread_order_seed: order, ..EmuConfig::default() };
        let result = run_kernel(&kernel, Some(&parsed.lines[0]), &[KernelArg::Buffer(out)], &config).unwrap();
        assert_eq!(result.outcome, EmuOutcome::Completed, "{order:?}");
        let values = result.buffers[0].as_ref().unwrap().to_i64_vec();
        // Lane 0 of each warp is elected (warp 1's is masked off by %p4); every token's phase
        // completed. Before the barrier only the last thread to arrive (thread 0 completed the
        // bytes first) sees its phase complete: thread 63 in order, one thread in any order.
        let expected: Vec<i64> = (0..64).map(|t| if t == 0 { 11 } else { 1 }).collect();
        assert_eq!(values.iter().map(|v| v % 100).collect::<Vec<_>>(), expected, "{order:?}");
        assert_eq!(values.iter().filter(|v| **v >= 100).count(), 1, "{order:?}");
        if order.is_none() {
            assert_eq!(values[63], 101);
        }
    }
}

#[test]
fn nested_blocks_shadow_their_outer_registers() {
    // The inner block's `x` is its own: setting it leaves the outer `x`, which decides the
    // outer loop's exit, alone.
    let text = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n\
        \t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t{\n\t.reg .b32 x;\n\tmov.b32 x, 7;\n\t{\n\t.reg .b32 x;\n\
        \tmov.b32 x, 9;\n\t}\n\tmov.b32 %r1, x;\n\t}\n\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r1;\n\
        \tret;\n}\n";
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let printed = print(&parsed.module).unwrap();
    assert!(printed.contains("mov.b32 %r2, 7;\n\tmov.b32 %r3, 9;\n\tmov.b32 %r1, %r2;"), "{printed}");
    let out = Tensor::from_i64(DataType::INT32, vec![1], &[0]).unwrap();
    let result =
        run_kernel(&parsed.module.kernels[0], Some(&parsed.lines[0]), &[KernelArg::Buffer(out)], &EmuConfig::default())
            .unwrap();
    assert_eq!(result.buffers[0].as_ref().unwrap().to_i64_vec(), vec![7]);
    // A name of a block is unknown after its `}`.
    let outside = text.replace("\tld.param.u64 %rd1, [out];\n", "\tmov.b32 %r0, x;\n\tld.param.u64 %rd1, [out];\n");
    let error = parse(&outside).expect_err("x is the block's");
    assert_eq!(error.line, 17, "{error}");
}
