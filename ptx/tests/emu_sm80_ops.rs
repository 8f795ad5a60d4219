//! The instructions compilers emit for sm_80 beyond codegen's set, run by the emulator from
//! PTX text: warp shuffles as collectives over their membermask (and the faults of the forms
//! PTX leaves undefined), the approximate functions within the ISA's bounds, float min/max
//! and the packed conversions.

use tirproof_ir::dtype::DataType;
use tirproof_machine::fault::FaultKind;
use tirproof_machine::Tensor;
use tirproof_ptx::emu::approx::{approx_bound, approx_exact};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, EmuResult, KernelArg};
use tirproof_ptx::module::{ApproxFn, Approximate, FloatDiv};
use tirproof_ptx::parse::parse;

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n";

/// Two warps: a butterfly sum over each warp, a broadcast of lane 3 (`idx`, with its
/// predicate) and a shift down by one (`down`, lane 31 out of range).
const SHUFFLES: &str = "
.visible .entry shuffles(
	.param .u64 shuffles_param_0,
	.param .u64 shuffles_param_1,
	.param .u64 shuffles_param_2
)
.reqntid 64, 1, 1
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;

	ld.param.u64 %rd1, [shuffles_param_0];
	ld.param.u64 %rd2, [shuffles_param_1];
	ld.param.u64 %rd3, [shuffles_param_2];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.b32 %r2, [%rd5];
	shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
	add.rn.f32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;
	add.rn.f32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;
	add.rn.f32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;
	add.rn.f32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
	add.rn.f32 %r2, %r2, %r3;
	add.s64 %rd6, %rd2, %rd4;
	st.global.b32 [%rd6], %r2;
	shfl.sync.idx.b32 %r4|%p1, %r1, 3, 31, -1;
	shfl.sync.down.b32 %r5|%p2, %r1, 1, 31, -1;
	selp.b32 %r6, 1000, 0, %p2;
	add.s32 %r7, %r5, %r6;
	selp.b32 %r8, 1000, 0, %p1;
	add.s32 %r9, %r4, %r8;
	mul.wide.u32 %rd4, %r1, 8;
	add.s64 %rd7, %rd3, %rd4;
	st.global.v2.b32 [%rd7], {%r9, %r7};
	ret;
}
";

/// One warp whose lanes 16-31 skip the shuffle; the membermask and the butterfly distance
/// are parameters.
const PARTIAL: &str = "
.visible .entry partial(
	.param .u64 partial_param_0,
	.param .u32 partial_param_1,
	.param .u32 partial_param_2
)
.reqntid 32, 1, 1
{
	.reg .pred %p<3>;
	.reg .b32 %r<14>;
	.reg .b64 %rd<6>;

	ld.param.u64 %rd1, [partial_param_0];
	ld.param.u32 %r10, [partial_param_1];
	ld.param.u32 %r11, [partial_param_2];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 16;
	@%p1 bra $L__skip;
	shfl.sync.bfly.b32 %r3, %r1, %r11, 31, %r10;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd1, %rd4;
	st.global.b32 [%rd5], %r3;
$L__skip:
	ret;
}
";

fn tensor(dtype: DataType, values: &[f64]) -> KernelArg {
    KernelArg::Buffer(Tensor::from_f64(dtype, vec![values.len()], values).expect("a tensor"))
}

fn run(text: &str, args: &[KernelArg], config: &EmuConfig) -> EmuResult {
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_kernel(&parsed.module.kernels[0], Some(&parsed.lines[0]), args, config).unwrap_or_else(|e| panic!("{e}"))
}

fn output(result: &EmuResult, index: usize) -> Vec<f64> {
    if let EmuOutcome::Fault(fault) = &result.outcome {
        panic!("{}", fault.details());
    }
    result.buffers[index].as_ref().expect("a buffer").to_f64_vec()
}

/// The fault of a run that must fault, and the line of `needle` in `text`.
fn fault_at(text: &str, args: &[KernelArg], needle: &str) -> (tirproof_machine::fault::Fault, u32) {
    let result = run(text, args, &EmuConfig::default());
    let EmuOutcome::Fault(fault) = result.outcome else { panic!("runs clean:\n{text}") };
    let line = text.lines().position(|l| l.contains(needle)).expect("the needle") + 1;
    (*fault, line as u32)
}

#[test]
fn shuffles_exchange_values_within_each_warp_under_every_order() {
    let x: Vec<f64> = (0..64).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
    let text = format!("{HEADER}{SHUFFLES}");
    for thread_order_seed in [None, Some(1), Some(2)] {
        let args = [
            tensor(DataType::FLOAT32, &x),
            tensor(DataType::FLOAT32, &[0.0; 64]),
            tensor(DataType::INT32, &[0.0; 128]),
        ];
        let result = run(&text, &args, &EmuConfig { thread_order_seed, ..EmuConfig::default() });
        let sums = output(&result, 1);
        let lanes = output(&result, 2);
        for t in 0..64 {
            let warp = t / 32;
            let want: f64 = x[warp * 32..warp * 32 + 32].iter().sum();
            assert_eq!(sums[t], want, "thread {t}: the warp's sum");
            // idx: lane 3 of the warp, in range (+1000).
            assert_eq!(lanes[2 * t], (warp * 32 + 3 + 1000) as f64, "thread {t}: idx");
            // down by 1: the next lane, in range; lane 31 keeps its own value, predicate false.
            let down = if t % 32 == 31 { t as f64 } else { (t + 1 + 1000) as f64 };
            assert_eq!(lanes[2 * t + 1], down, "thread {t}: down");
        }
    }
}

#[test]
fn a_shuffle_of_part_of_a_warp_runs_with_the_lanes_of_its_membermask() {
    let text = format!("{HEADER}{PARTIAL}");
    let args = [tensor(DataType::INT32, &[0.0; 32]), KernelArg::Scalar(0xffff), KernelArg::Scalar(8)];
    let out = output(&run(&text, &args, &EmuConfig::default()), 0);
    for (lane, value) in out.iter().enumerate().take(16) {
        assert_eq!(*value, (lane ^ 8) as f64, "lane {lane}");
    }
    assert!(out[16..].iter().all(|v| *v == 0.0));
}

#[test]
fn shuffles_ptx_leaves_undefined_fault_naming_the_lanes() {
    let text = format!("{HEADER}{PARTIAL}");
    let args = |mask: u64, distance: u64| {
        [tensor(DataType::INT32, &[0.0; 32]), KernelArg::Scalar(mask), KernelArg::Scalar(distance)]
    };
    // Reading a lane outside the membermask.
    let (fault, line) = fault_at(&text, &args(0xffff, 16), "shfl.sync");
    assert_eq!((fault.kind, fault.span.line), (FaultKind::BarrierDivergence, line));
    assert!(fault.message.contains("reads lane 16") && fault.message.contains("0x0000ffff"), "{}", fault.message);
    // A membermask that leaves out the lane executing it.
    let (fault, _) = fault_at(&text, &args(0xfffe, 8), "shfl.sync");
    assert!(
        fault.message.contains("lane 0 of warp 0") && fault.message.contains("does not name it"),
        "{}",
        fault.message
    );
    // Lanes 16-31 never come: the deadlock names the shuffle.
    let (fault, line) = fault_at(&text, &args(0xffff_ffff, 8), "shfl.sync");
    assert_eq!((fault.kind, fault.span.line), (FaultKind::BarrierDivergence, line));
    assert!(fault.message.contains("did not all reach"), "{}", fault.message);
    // Two lanes of one mask with different masks.
    let mismatch = text.replace("@%p1 bra $L__skip;", "setp.eq.u32 %p2, %r1, 1;\n\tselp.b32 %r10, 3, -1, %p2;");
    let (fault, line) = fault_at(&mismatch, &args(0, 8), "shfl.sync");
    assert_eq!((fault.kind, fault.span.line), (FaultKind::BarrierDivergence, line));
    assert!(fault.message.contains("0xffffffff and 0x00000003"), "{}", fault.message);
}

/// One thread per operand: every approximate function, both divisions by 3, `max.NaN`
/// against 0.5, and `cvt.rn.f16x2.f32` of the operand and its negation.
const MATH: &str = "
.visible .entry math(
	.param .u64 math_param_0,
	.param .u64 math_param_1
)
.reqntid 32, 1, 1
{
	.reg .b32 %r<30>;
	.reg .b64 %rd<8>;

	ld.param.u64 %rd1, [math_param_0];
	ld.param.u64 %rd2, [math_param_1];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.b32 %r2, [%rd4];
	ex2.approx.f32 %r10, %r2;
	lg2.approx.ftz.f32 %r11, %r2;
	rcp.approx.f32 %r12, %r2;
	rsqrt.approx.ftz.f32 %r13, %r2;
	sqrt.approx.f32 %r14, %r2;
	sin.approx.f32 %r15, %r2;
	cos.approx.ftz.f32 %r16, %r2;
	tanh.approx.f32 %r17, %r2;
	div.full.f32 %r18, %r2, 0f40400000;
	div.approx.ftz.f32 %r19, %r2, 0f40400000;
	max.NaN.f32 %r20, %r2, 0f3F000000;
	neg.f32 %r21, %r2;
	cvt.rn.f16x2.f32 %r22, %r2, %r21;
	mul.wide.u32 %rd3, %r1, 64;
	add.s64 %rd5, %rd2, %rd3;
	st.global.v4.b32 [%rd5], {%r10, %r11, %r12, %r13};
	st.global.v4.b32 [%rd5+16], {%r14, %r15, %r16, %r17};
	st.global.v4.b32 [%rd5+32], {%r18, %r19, %r20, %r22};
	ret;
}
";

#[test]
fn approximate_instructions_are_within_the_isa_bounds() {
    let x: Vec<f64> = (0..32).map(|i| if i == 31 { f64::NAN } else { 0.25 + 1.37 * i as f64 }).collect();
    let args = [tensor(DataType::FLOAT32, &x), tensor(DataType::INT32, &[0.0; 32 * 16])];
    let result = run(&format!("{HEADER}{MATH}"), &args, &EmuConfig::default());
    let words: Vec<u32> = output(&result, 1).iter().map(|v| *v as i64 as u32).collect();
    let functions = [
        Approximate::Fn(ApproxFn::Ex2),
        Approximate::Fn(ApproxFn::Lg2),
        Approximate::Fn(ApproxFn::Rcp),
        Approximate::Fn(ApproxFn::Rsqrt),
        Approximate::Fn(ApproxFn::Sqrt),
        Approximate::Fn(ApproxFn::Sin),
        Approximate::Fn(ApproxFn::Cos),
        Approximate::Fn(ApproxFn::Tanh),
        Approximate::Div(FloatDiv::Full),
        Approximate::Div(FloatDiv::Approx),
    ];
    for (t, operand) in x.iter().enumerate() {
        let a = *operand as f32;
        for (k, inst) in functions.into_iter().enumerate() {
            let got = f32::from_bits(words[t * 16 + k]);
            let exact = approx_exact(inst, a, 3.0);
            assert!(approx_bound(inst).isa.admits(exact, got), "{inst} of {a}: {got}, exactly {exact}");
            if a.is_nan() {
                assert_eq!(got.to_bits(), 0x7FFF_FFFF, "{inst} of NaN: the canonical NaN");
            }
        }
        let max = words[t * 16 + 10];
        if a.is_nan() {
            assert_eq!(max, 0x7FFF_FFFF, "max.NaN with a NaN");
        } else {
            assert_eq!(f32::from_bits(max), a.max(0.5));
        }
        let packed = words[t * 16 + 11];
        let (hi, lo) = (half::f16::from_bits((packed >> 16) as u16), half::f16::from_bits(packed as u16));
        if a.is_nan() {
            assert_eq!(packed, 0x7FFF_7FFF, "cvt.rn.f16x2 of NaN");
        } else {
            assert_eq!((hi, lo), (half::f16::from_f32(a), half::f16::from_f32(-a)), "cvt.rn.f16x2.f32 of {a}, -{a}");
        }
    }
}
