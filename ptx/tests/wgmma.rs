//! Hopper's wgmma queue and the async proxy on Triton 3.9's sm_90a kernels (`corpus/ttgir`)
//! and on small hand-written kernels: the products equal a reference under every schedule and
//! thread order, and each way of breaking the queue's protocol (a wait loosened, a proxy fence
//! or a barrier removed, an accumulator read early, a warpgroup exiting with work in flight)
//! faults naming the queue, the instruction in flight and the wait.

use std::path::{Path, PathBuf};

use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_machine::fault::FaultKind;
use tirproof_machine::{Schedule, Tensor};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::launch::LaunchRequest;
use tirproof_ptx::module::{Dims, Kernel};
use tirproof_ptx::parse::parse;

fn corpus(file: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ttgir").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first kernel of `text` launched as `grid` x `block` with `shared` dynamic bytes.
fn kernel_of(text: &str, grid: [u32; 3], block: [u32; 3], shared: u64) -> (Kernel, Vec<u32>) {
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let request = LaunchRequest { grid: Some(Dims(grid)), block: Some(Dims(block)), dynamic_shared: shared };
    let kernel = parsed.module.kernels[0].launched(parsed.module.arch, request).unwrap_or_else(|e| panic!("{e}"));
    (kernel, parsed.lines[0].clone())
}

/// Small integers, so every sum of products is exact in f32 in any order.
fn values(len: usize, salt: usize) -> Vec<f64> {
    (0..len).map(|i| ((i * 7 + salt * 3) % 9) as f64 - 4.0).collect()
}

/// Triton's `matmul` kernel (a: m x k, b: k x n, c: m x n f32) on one 64 x 64 tile of c.
struct Matmul {
    m: usize,
    n: usize,
    k: usize,
    input: DataType,
}

impl Matmul {
    fn args(&self) -> Vec<KernelArg> {
        let (m, n, k) = (self.m, self.n, self.k);
        let buffer =
            |dtype, len, salt| KernelArg::Buffer(Tensor::from_f64(dtype, vec![len], &values(len, salt)).unwrap());
        let scalar = |v: usize| KernelArg::Scalar(v as u64);
        vec![
            buffer(self.input, m * k, 0),
            buffer(self.input, k * n, 1),
            buffer(DataType::FLOAT32, m * n, 2),
            scalar(m),
            scalar(n),
            scalar(k),
            scalar(k),
            scalar(n),
            scalar(n),
            KernelArg::Scalar(0),
            KernelArg::Scalar(0),
        ]
    }

    fn reference(&self) -> Vec<f64> {
        let (a, b) = (values(self.m * self.k, 0), values(self.k * self.n, 1));
        (0..self.m * self.n)
            .map(|at| {
                let (i, j) = (at / self.n, at % self.n);
                (0..self.k).map(|x| a[i * self.k + x] * b[x * self.n + j]).sum()
            })
            .collect()
    }
}

fn run(kernel: &Kernel, lines: &[u32], args: &[KernelArg], config: &EmuConfig) -> (EmuOutcome, Vec<Option<Tensor>>) {
    let result = run_kernel(kernel, Some(lines), args, config).unwrap_or_else(|e| panic!("the emulator failed: {e}"));
    (result.outcome, result.buffers)
}

fn configs() -> Vec<EmuConfig> {
    let mut out = Vec::new();
    for schedule in [Schedule::Lazy, Schedule::Eager, Schedule::Random(7)] {
        for thread_order_seed in [None, Some(3)] {
            out.push(EmuConfig { schedule, thread_order_seed, ..EmuConfig::default() });
        }
    }
    out
}

fn check_matmul(file: &str, shared: u64, mm: &Matmul, threads: u32) {
    let text = corpus(file);
    let (kernel, lines) = kernel_of(&text, [1, 1, 1], [threads, 1, 1], shared);
    for config in configs() {
        let (outcome, buffers) = run(&kernel, &lines, &mm.args(), &config);
        if let EmuOutcome::Fault(f) = &outcome {
            panic!("{file} under {config:?}: {}", f.details());
        }
        let c = buffers[2].as_ref().expect("c").to_f64_vec();
        assert_eq!(c, mm.reference(), "{file} under {config:?}");
    }
}

const BF16: DataType = DataType::new(TypeCode::BFloat, 16, 1);

#[test]
fn triton_sm90_matmuls_equal_the_reference_under_every_schedule() {
    let f16 = Matmul { m: 64, n: 64, k: 128, input: DataType::FLOAT16 };
    check_matmul("matmul_f16_s3_sm90.ptx", 24576, &f16, 128);
    // Two warpgroups (8 warps) sharing B, m64n128 bf16 instructions.
    let bf16 = Matmul { m: 128, n: 128, k: 256, input: BF16 };
    check_matmul("matmul_bf16_s3_sm90.ptx", 98304, &bf16, 256);
}

/// Every sm_90a kernel Triton emitted parses and decodes (a run of no fuel stops at once).
#[test]
fn every_triton_sm90_kernel_parses_and_decodes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ttgir");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus/ttgir") {
        let path = entry.expect("an entry").path();
        if !path.to_string_lossy().ends_with("_sm90.ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("the PTX");
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (kernel, lines) in parsed.module.kernels.iter().zip(&parsed.lines) {
            let args: Vec<KernelArg> = kernel
                .params
                .iter()
                .map(|_| KernelArg::Buffer(Tensor::zeros(DataType::FLOAT32, vec![1]).expect("a buffer")))
                .collect();
            let config = EmuConfig { fuel: 0, ..EmuConfig::default() };
            if let Err(e) = run_kernel(kernel, Some(lines), &args, &config) {
                panic!("{}: {e}", path.display());
            }
        }
        seen += 1;
    }
    assert!(seen >= 9, "{seen} sm_90a kernels");
}

/// The lines of `text` (1-based) that hold `needle`.
fn lines_with(text: &str, needle: &str) -> Vec<usize> {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect()
}

/// `text` with line `line` (1-based) replaced by `with`.
fn replace_line(text: &str, line: usize, with: &str) -> String {
    text.lines().enumerate().map(|(i, l)| if i + 1 == line { with } else { l }).collect::<Vec<_>>().join("\n")
}

/// The mutants of a Triton sm_90a matmul: every `wgmma.wait_group` loosened by one, every
/// `fence.proxy.async`, `bar.sync` and `wgmma.fence` removed; each named, with its text.
fn mutants(text: &str) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for line in lines_with(text, "wgmma.wait_group.sync.aligned") {
        let old = text.lines().nth(line - 1).unwrap_or_default();
        let n: u32 = old.trim().trim_end_matches(';').rsplit(' ').next().and_then(|n| n.parse().ok()).expect("a count");
        let new = format!("\twgmma.wait_group.sync.aligned {};", n + 1);
        out.push((format!("wgmma.wait_group {n} -> {}", n + 1), line, replace_line(text, line, &new)));
    }
    for needle in ["fence.proxy.async", "bar.sync", "wgmma.fence"] {
        for line in lines_with(text, needle) {
            out.push((format!("`{needle}` removed"), line, replace_line(text, line, "")));
        }
    }
    out
}

/// Every mutant of Triton's sm_90a matmuls faults under the lazy schedule where it breaks the
/// protocol, naming what it no longer protects; the one barrier that is redundant (right after
/// `wgmma.wait_group 1`: the warpgroup's wait already retired the wgmma that read the slot
/// the next copy overwrites, and one warpgroup is the slot's only reader) runs clean.
#[test]
fn triton_sm90_matmul_mutants_fault_where_they_break_the_protocol() {
    let f16 = Matmul { m: 64, n: 64, k: 128, input: DataType::FLOAT16 };
    let bf16 = Matmul { m: 128, n: 128, k: 256, input: BF16 };
    for (file, shared, mm, threads) in
        [("matmul_f16_s2_sm90.ptx", 16384, &f16, 128), ("matmul_bf16_s3_sm90.ptx", 98304, &bf16, 256)]
    {
        let text = corpus(file);
        let waits = lines_with(&text, "wgmma.wait_group.sync.aligned");
        let after_wait = lines_with(&text, "bar.sync").into_iter().find(|b| *b > waits[0]).expect("a barrier");
        // With one warpgroup the barrier after its wait is redundant; with two it orders one
        // warpgroup's wait before the other's copy into the slot both read.
        let redundant_barrier = if threads == 128 { after_wait } else { 0 };
        for (name, line, mutant) in mutants(&text) {
            let (kernel, lines) = kernel_of(&mutant, [1, 1, 1], [threads, 1, 1], shared);
            let (outcome, buffers) = run(&kernel, &lines, &mm.args(), &EmuConfig::default());
            let what = format!("{file} line {line}: {name}");
            match outcome {
                EmuOutcome::Completed => {
                    assert_eq!(line, redundant_barrier, "{what}: ran clean");
                    assert_eq!(buffers[2].as_ref().expect("c").to_f64_vec(), mm.reference(), "{what}");
                }
                EmuOutcome::Fault(fault) => {
                    assert_ne!(line, redundant_barrier, "{what}: {}", fault.details());
                    let message = &fault.message;
                    if name.starts_with("wgmma.wait_group") {
                        assert!(message.contains("queue `wgmma`"), "{what}: {message}");
                        assert!(
                            message.contains("is pending") && message.contains("left it in flight"),
                            "{what}: {message}"
                        );
                        assert!(message.contains(&format!("at line {line}")), "{what}: {message}");
                    }
                    if name.contains("fence.proxy.async") {
                        assert!(message.contains("no fence.proxy.async"), "{what}: {message}");
                        assert_eq!(fault.kind, FaultKind::CrossThreadRace, "{what}");
                    }
                    if name.contains("wgmma.fence") {
                        assert!(message.contains("no wgmma.fence"), "{what}: {message}");
                    }
                    if line == after_wait {
                        assert!(message.contains("queue `wgmma`"), "{what}: {message}");
                    }
                }
            }
        }
    }
}

/// A hand-written kernel of one warpgroup: every thread copies 16 bytes of the A image and
/// (threads 0-15) of the B image into shared memory, fences, meets the others at a barrier;
/// then `BODY` runs (descriptors in %rd7 (A) and %rd9 (B), D in %r20-%r23 zeroed, the thread's
/// A fragment registers in %r3-%r6) and each thread stores its four D registers at `out + 16t`.
const HAND: &str = "
.version 8.0
.target sm_90a
.address_size 64

.visible .entry wg(
	.param .u64 wg_param_0,
	.param .u64 wg_param_1,
	.param .u64 wg_param_2
)
.reqntid 128
{
	.reg .pred %p<3>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 128 .b8 sA[2048];
	.shared .align 128 .b8 sB[256];

	ld.param.u64 %rd1, [wg_param_0];
	ld.param.u64 %rd2, [wg_param_1];
	ld.param.u64 %rd3, [wg_param_2];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	cvt.u64.u32 %rd4, %r2;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.v4.b32 {%r3, %r4, %r5, %r6}, [%rd5];
	mov.u32 %r7, sA;
	add.s32 %r8, %r7, %r2;
	st.shared.v4.b32 [%r8], {%r3, %r4, %r5, %r6};
	setp.lt.u32 %p1, %r1, 16;
	add.s64 %rd11, %rd2, %rd4;
	@%p1 ld.global.v4.b32 {%r12, %r13, %r14, %r15}, [%rd11];
	mov.u32 %r9, sB;
	add.s32 %r16, %r9, %r2;
	@%p1 st.shared.v4.b32 [%r16], {%r12, %r13, %r14, %r15};
	FENCE
	bar.sync 0;
	shr.u32 %r10, %r7, 4;
	cvt.u64.u32 %rd6, %r10;
	or.b64 %rd7, %rd6, 34363932672;
	shr.u32 %r11, %r9, 4;
	cvt.u64.u32 %rd8, %r11;
	or.b64 %rd9, %rd8, 34360262656;
	mov.b32 %r20, 0f00000000;
	mov.b32 %r21, 0f00000000;
	mov.b32 %r22, 0f00000000;
	mov.b32 %r23, 0f00000000;
	wgmma.fence.sync.aligned;
BODY
	add.s64 %rd10, %rd3, %rd4;
	st.global.v4.b32 [%rd10], {%r20, %r21, %r22, %r23};
	ret;
}
";

const MMA_DESC: &str =
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r20, %r21, %r22, %r23}, %rd7, %rd9, 1, 1, 1, 0, 0;";
const MMA_REGS: &str =
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r20, %r21, %r22, %r23}, {%r3, %r4, %r5, %r6}, %rd9, 1, 1, 1, 0;";
const COMMIT: &str = "wgmma.commit_group.sync.aligned;";
const WAIT0: &str = "wgmma.wait_group.sync.aligned 0;";

fn hand(body: &[&str], fence: bool) -> String {
    let fence = if fence { "fence.proxy.async.shared::cta;" } else { "" };
    HAND.replace("FENCE", fence).replace("BODY", &body.iter().map(|l| format!("\t{l}\n")).collect::<String>())
}

/// A (64 x 16) and B (16 x 8) of the hand-written kernel, as f16 values.
fn hand_a(m: usize, k: usize) -> f64 {
    ((m * 3 + k * 5) % 11) as f64 - 5.0
}

fn hand_b(k: usize, n: usize) -> f64 {
    ((k * 7 + n * 2) % 9) as f64 - 4.0
}

fn f16_bits(v: f64) -> u64 {
    u64::from(half::f16::from_f64(v).to_bits())
}

/// Packs 16-bit values into the 32-bit words of an image.
fn words(halves: &[u64]) -> Vec<u64> {
    halves.chunks(2).map(|p| p[0] | p[1] << 16).collect()
}

/// The images of A and B in the ISA's K-major layout without swizzle: 8 x 16-byte core
/// matrices, 128 bytes between 8-row groups, the second 8 of K 1024 (A) or 128 (B) bytes on.
fn images() -> (Vec<u64>, Vec<u64>) {
    let mut a = vec![0u64; 1024];
    for m in 0..64 {
        for k in 0..16 {
            a[((m % 8) * 16 + (m / 8) * 128 + (k % 8) * 2 + (k / 8) * 1024) / 2] = f16_bits(hand_a(m, k));
        }
    }
    let mut b = vec![0u64; 128];
    for n in 0..8 {
        for k in 0..16 {
            b[(n * 16 + (k % 8) * 2 + (k / 8) * 128) / 2] = f16_bits(hand_b(k, n));
        }
    }
    (words(&a), words(&b))
}

/// Thread `t`'s four A fragment registers (ISA: like mma.m16n8k16's A, warp w on rows 16w..).
fn a_fragments() -> Vec<u64> {
    let mut out = Vec::new();
    for t in 0..128 {
        let (w, g, p) = (t / 32, t % 32 / 4, t % 4);
        for (dr, dk) in [(0, 0), (8, 0), (0, 8), (8, 8)] {
            let (row, k) = (16 * w + g + dr, 2 * p + dk);
            out.push(f16_bits(hand_a(row, k)) | f16_bits(hand_a(row, k + 1)) << 16);
        }
    }
    out
}

/// D = A * B + `init`, as the threads' registers store it (ISA: D's fragments like mma's C).
fn expected(init: f64, times: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for t in 0..128 {
        let (w, g, p) = (t / 32, t % 32 / 4, t % 4);
        for (dr, dc) in [(0, 0), (0, 1), (8, 0), (8, 1)] {
            let (row, col) = (16 * w + g + dr, 2 * p + dc);
            out.push(init + times * (0..16).map(|k| hand_a(row, k) * hand_b(k, col)).sum::<f64>());
        }
    }
    out
}

fn run_hand(text: &str, a_image: Vec<u64>, config: &EmuConfig) -> (EmuOutcome, Vec<f64>) {
    run_hand_threads(text, a_image, config, 128)
}

/// The hand-written kernel in `threads` threads (each copying 16 bytes of the A image).
fn run_hand_threads(text: &str, mut a_image: Vec<u64>, config: &EmuConfig, threads: u32) -> (EmuOutcome, Vec<f64>) {
    let (kernel, lines) = kernel_of(text, [1, 1, 1], [threads, 1, 1], 0);
    let (_, b_image) = images();
    let words = threads as usize * 4;
    a_image.resize(words, 0);
    let args = vec![
        KernelArg::Buffer(Tensor::from_bits(DataType::INT32, vec![words], a_image).unwrap()),
        KernelArg::Buffer(Tensor::from_bits(DataType::INT32, vec![64], b_image).unwrap()),
        KernelArg::Buffer(Tensor::zeros(DataType::FLOAT32, vec![words]).unwrap()),
    ];
    let (outcome, buffers) = run(&kernel, &lines, &args, config);
    (outcome, buffers[2].as_ref().expect("out").to_f64_vec())
}

const D_ONES: [&str; 4] = [
    "mov.b32 %r20, 0f3F800000;",
    "mov.b32 %r21, 0f3F800000;",
    "mov.b32 %r22, 0f3F800000;",
    "mov.b32 %r23, 0f3F800000;",
];

#[test]
fn a_hand_written_wgmma_computes_the_product_from_descriptors_and_from_registers() {
    let (a_image, _) = images();
    let scale_d_zero = MMA_DESC.replace("%rd9, 1, 1, 1", "%rd9, 0, 1, 1");
    for config in configs() {
        let (outcome, out) = run_hand(&hand(&[MMA_DESC, COMMIT, WAIT0], true), a_image.clone(), &config);
        assert_eq!(outcome, EmuOutcome::Completed, "{config:?}");
        assert_eq!(out, expected(0.0, 1.0), "descriptors, {config:?}");
        // Accumulating into D, or not (scale-d 0).
        let body = [&D_ONES[..], &["wgmma.fence.sync.aligned;", MMA_DESC, COMMIT, WAIT0]].concat();
        let (_, out) = run_hand(&hand(&body, true), a_image.clone(), &config);
        assert_eq!(out, expected(1.0, 1.0), "accumulating, {config:?}");
        let body = [&D_ONES[..], &["wgmma.fence.sync.aligned;", &scale_d_zero, COMMIT, WAIT0]].concat();
        let (_, out) = run_hand(&hand(&body, true), a_image.clone(), &config);
        assert_eq!(out, expected(0.0, 1.0), "scale-d 0, {config:?}");
        // A from registers, twice on the same accumulators in one group (a chain), and in two.
        let copy = ["mov.b32 %r24, %r3;", "mov.b32 %r25, %r4;", "mov.b32 %r26, %r5;", "mov.b32 %r27, %r6;"];
        let second = MMA_REGS.replace("{%r3, %r4, %r5, %r6}", "{%r24, %r25, %r26, %r27}");
        let body = [&copy[..], &["wgmma.fence.sync.aligned;", MMA_REGS, &second, COMMIT, WAIT0]].concat();
        let (outcome, out) = run_hand(&hand(&body, true), a_fragments(), &config);
        assert_eq!(outcome, EmuOutcome::Completed, "{config:?}");
        assert_eq!(out, expected(0.0, 2.0), "registers, {config:?}");
        let two = [MMA_REGS, COMMIT, &second, COMMIT, "wgmma.wait_group.sync.aligned 1;", WAIT0];
        let body = [&copy[..], &["wgmma.fence.sync.aligned;"], &two[..]].concat();
        let (outcome, out) = run_hand(&hand(&body, true), a_fragments(), &config);
        assert_eq!(outcome, EmuOutcome::Completed, "{config:?}");
        assert_eq!(out, expected(0.0, 2.0), "two groups, {config:?}");
    }
}

/// Runs a hand-written body under the lazy schedule and returns its fault.
fn hand_fault(body: &[&str], fence: bool, a_image: Vec<u64>) -> tirproof_machine::Fault {
    match run_hand(&hand(body, fence), a_image, &EmuConfig::default()).0 {
        EmuOutcome::Fault(fault) => *fault,
        EmuOutcome::Completed => panic!("{body:?} ran clean"),
    }
}

#[test]
fn breaking_the_wgmma_protocol_faults_naming_the_queue_the_instruction_and_the_wait() {
    let (a_image, _) = images();
    let expect = |fault: tirproof_machine::Fault, kind: FaultKind, parts: &[&str]| {
        assert_eq!(fault.kind, kind, "{}", fault.message);
        for part in parts {
            assert!(fault.message.contains(part), "`{part}` not in: {}", fault.message);
        }
    };
    // An accumulator read before any wait retired its wgmma.
    let fault = hand_fault(&[MMA_DESC, COMMIT, "mov.b32 %r30, %r20;", WAIT0], true, a_image.clone());
    expect(fault, FaultKind::ReadPendingAsync, &["queue `wgmma`", "%r20, an accumulator (D)", "no wgmma.wait_group"]);
    // A wait that leaves the group in flight, then the accumulators stored.
    let fault = hand_fault(&[MMA_DESC, COMMIT, "wgmma.wait_group.sync.aligned 1;"], true, a_image.clone());
    expect(fault, FaultKind::ReadPendingAsync, &["queue `wgmma`", "`wgmma.wait_group.sync.aligned 1;`", "group 1"]);
    // An A register overwritten while its wgmma is in flight.
    let fault = hand_fault(&[MMA_REGS, COMMIT, "mov.b32 %r3, 0;", WAIT0], true, a_fragments());
    expect(fault, FaultKind::WritePendingAsync, &["queue `wgmma`", "%r3, an A register"]);
    // Shared memory the wgmma reads overwritten before the wait; after it (and a barrier) is fine.
    let fault = hand_fault(&[MMA_DESC, COMMIT, "st.shared.b32 [%r8], %r3;", WAIT0], true, a_image.clone());
    expect(
        fault,
        FaultKind::WritePendingAsync,
        &["queue `wgmma`", "sA[byte", "as its A operand", "no wgmma.wait_group"],
    );
    let body = [MMA_DESC, COMMIT, WAIT0, "bar.sync 0;", "st.shared.b32 [%r8], %r3;"];
    assert_eq!(run_hand(&hand(&body, true), a_image.clone(), &EmuConfig::default()).0, EmuOutcome::Completed);
    // The generic-proxy writes of the operands not fenced before the async-proxy read.
    let fault = hand_fault(&[MMA_DESC, COMMIT, WAIT0], false, a_image.clone());
    expect(fault, FaultKind::CrossThreadRace, &["async proxy", "races with", "no fence.proxy.async", "st.shared"]);
    // A warpgroup ending with a group in flight, or with an uncommitted wgmma.
    let fault = hand_fault(&[MMA_DESC, COMMIT, "ret;"], true, a_image.clone());
    expect(fault, FaultKind::UnwaitedGroup, &["queue `wgmma`", "exits with", "group 1 committed", "never waited"]);
    let fault = hand_fault(&[MMA_DESC, WAIT0, "ret;"], true, a_image.clone());
    expect(fault, FaultKind::UnwaitedGroup, &["exits with", "not yet committed"]);
    // Accumulators written after the kernel's wgmma.fence and before the wgmma.
    let body = [&D_ONES[..], &[MMA_DESC, COMMIT, WAIT0]].concat();
    let fault = hand_fault(&body, true, a_image.clone());
    expect(fault, FaultKind::CrossThreadRace, &["queue `wgmma`", "%r20", "no wgmma.fence"]);
    // A second wgmma reading the in-flight one's A registers, or naming its accumulators in
    // another order, is no chain.
    let fault = hand_fault(&[MMA_REGS, MMA_REGS, COMMIT, WAIT0], true, a_fragments());
    expect(fault, FaultKind::ReadPendingAsync, &["names %r3", "only the same accumulators may chain"]);
    let swapped = MMA_DESC.replace("{%r20, %r21", "{%r21, %r20");
    let fault = hand_fault(&[MMA_DESC, COMMIT, &swapped, COMMIT, WAIT0], true, a_image);
    expect(fault, FaultKind::ReadPendingAsync, &["only the same accumulators may chain"]);
}

/// Two warpgroups multiply the same shared A and B. Once a warpgroup's wait retired its wgmma,
/// only that warpgroup knows: a thread of the other one writing B before a barrier races with
/// it, after a barrier it does not.
#[test]
fn a_warpgroup_writing_what_another_ones_wgmma_read_needs_a_barrier_after_that_wait() {
    let (a_image, _) = images();
    let two = |body: &[&str]| hand(body, true).replace(".reqntid 128", ".reqntid 256").replace("sA[2048]", "sA[4096]");
    let store = ["setp.eq.u32 %p2, %r1, 128;", "@%p2 st.shared.b32 [%r9], %r3;"];
    let racy = two(&[&[MMA_DESC, COMMIT, WAIT0][..], &store[..]].concat());
    match run_hand_threads(&racy, a_image.clone(), &EmuConfig::default(), 256).0 {
        EmuOutcome::Fault(fault) => {
            assert_eq!(fault.kind, FaultKind::CrossThreadRace, "{}", fault.message);
            for part in ["queue `wgmma`", "sB[byte 0]", "another warpgroup", "`wgmma.wait_group.sync.aligned 0;`"] {
                assert!(fault.message.contains(part), "`{part}` not in: {}", fault.message);
            }
        }
        EmuOutcome::Completed => panic!("the store raced and ran clean"),
    }
    let ordered = two(&[&[MMA_DESC, COMMIT, WAIT0, "bar.sync 0;"][..], &store[..]].concat());
    for config in configs() {
        let (outcome, out) = run_hand_threads(&ordered, a_image.clone(), &config, 256);
        assert_eq!(outcome, EmuOutcome::Completed, "{config:?}");
        // The second warpgroup's threads hold the same D as the first's.
        let expected = expected(0.0, 1.0);
        assert_eq!(out, [expected.clone(), expected].concat(), "{config:?}");
    }
}

/// The hand-written kernel with a `cp.async` of each thread committed, and left in flight, before
/// its stores of A: into a third array (`into_a` false), or over its own bytes of A after the
/// stores (`into_a` true); waited for only at the end.
fn hand_with_copy_in_flight(into_a: bool) -> String {
    let copy = "\tmov.u32 %r30, sC;\n\tadd.s32 %r31, %r30, %r2;\n\tcp.async.cg.shared.global [%r31], [%rd5], 16;\n\
                \tcp.async.commit_group;\n";
    let text = hand(&[MMA_DESC, COMMIT, WAIT0], true)
        .replace(
            "\t.shared .align 128 .b8 sB[256];",
            "\t.shared .align 128 .b8 sB[256];\n\t.shared .align 16 .b8 sC[2048];",
        )
        .replace("\tret;", "\tcp.async.wait_all;\n\tret;");
    if into_a {
        let over_a = copy.replace("mov.u32 %r30, sC;", "mov.u32 %r30, sA;");
        text.replacen("\tsetp.lt.u32 %p1, %r1, 16;", &format!("{over_a}\tsetp.lt.u32 %p1, %r1, 16;"), 1)
    } else {
        text.replacen("\tmov.u32 %r7, sA;", &format!("{copy}\tmov.u32 %r7, sA;"), 1)
    }
}

#[test]
fn a_fence_orders_the_stores_before_it_while_another_copy_of_the_thread_is_in_flight() {
    let (a_image, _) = images();
    // Triton's persistent matmul prefetches the next tile with cp.async and stages this one
    // through registers: the fence covers the stores, the copy in flight is not read.
    for config in configs() {
        let (outcome, out) = run_hand(&hand_with_copy_in_flight(false), a_image.clone(), &config);
        assert_eq!(outcome, EmuOutcome::Completed, "{config:?}");
        assert_eq!(out, expected(0.0, 1.0), "{config:?}");
    }
    // The copy in flight over the bytes the wgmma reads: no fence orders it before its wait.
    let (a_image, _) = images();
    match run_hand(&hand_with_copy_in_flight(true), a_image, &EmuConfig::default()).0 {
        EmuOutcome::Fault(fault) => assert!(
            fault.message.contains("pending") || fault.message.contains("no fence.proxy.async"),
            "{}",
            fault.message
        ),
        EmuOutcome::Completed => panic!("a wgmma read bytes a cp.async still has in flight, and ran clean"),
    }
}
