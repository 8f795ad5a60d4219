//! The emulator reads every integer operand at its instruction's type: a register wider than
//! the type contributes only its low bits (sign-extended for signed types), so a divisor that
//! is zero in those bits is a division by zero, a located fault, whatever the upper bits hold;
//! `INT_MIN / -1` wraps to `INT_MIN` and its remainder is 0.

use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_machine::fault::FaultKind;
use tirproof_machine::Tensor;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::parse::parse;

/// A kernel that puts `a` in `%rd2`, `b` in `%rd3` (64-bit registers), runs `inst` (writing
/// `%rd4`) and stores `%rd4` to its one `u64` output.
fn kernel_text(a: i64, b: i64, inst: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_out\n)\n{{\n\
         \t.reg .b64 %rd<5>;\n\tld.param.u64 %rd1, [k_out];\n\tmov.u64 %rd2, {a:#x};\n\tmov.u64 %rd3, {b:#x};\n\
         \tmov.u64 %rd4, 0;\n\t{inst};\n\tst.global.u64 [%rd1], %rd4;\n\tret;\n}}\n"
    )
}

/// Runs `inst` on `a` and `b`: the output's bits, or the fault.
fn run(a: i64, b: i64, inst: &str) -> Result<u64, (FaultKind, u32, String)> {
    run_text(&kernel_text(a, b, inst))
}

fn run_text(text: &str) -> Result<u64, (FaultKind, u32, String)> {
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let out = Tensor::from_f64(DataType::new(TypeCode::UInt, 64, 1), vec![1], &[0.0]).expect("a tensor");
    let result =
        run_kernel(&parsed.module.kernels[0], Some(&parsed.lines[0]), &[KernelArg::Buffer(out)], &EmuConfig::default())
            .expect("the emulator runs the kernel");
    match result.outcome {
        EmuOutcome::Completed => Ok(result.buffers[0].as_ref().expect("the output").bits()[0]),
        EmuOutcome::Fault(fault) => Err((fault.kind, fault.span.line, fault.message.clone())),
    }
}

const INST_LINE: u32 = 14;

fn assert_division_by_zero(a: i64, b: i64, inst: &str) {
    match run(a, b, inst) {
        Err((FaultKind::DivisionByZero, line, message)) => {
            assert_eq!(line, INST_LINE, "{message}");
            assert!(message.contains(inst), "the fault names the instruction: {message}");
        }
        other => panic!("`{inst}` of {a} by {b}: {other:?}"),
    }
}

#[test]
fn a_divisor_zero_in_the_types_bits_is_a_located_division_by_zero() {
    for inst in
        ["rem.s32 %rd4, %rd2, %rd3", "div.s32 %rd4, %rd2, %rd3", "rem.u32 %rd4, %rd2, %rd3", "div.u32 %rd4, %rd2, %rd3"]
    {
        assert_division_by_zero(7, 1 << 32, inst);
    }
    for inst in ["div.s16 %rd4, %rd2, %rd3", "rem.u16 %rd4, %rd2, %rd3"] {
        assert_division_by_zero(7, 1 << 16, inst);
    }
    assert_division_by_zero(7, 0, "div.s64 %rd4, %rd2, %rd3");
    assert_division_by_zero(7, 0, "rem.u64 %rd4, %rd2, %rd3");
}

#[test]
fn operands_are_read_at_the_instructions_type() {
    let low32 = |v: i64| v as u64 & 0xffff_ffff;
    // The dividend's upper bits do not count either: 2^32 + 7 is 7 as a 32-bit value.
    assert_eq!(run((1 << 32) + 7, 2, "div.u32 %rd4, %rd2, %rd3"), Ok(3));
    assert_eq!(run((1 << 32) + 7, (1 << 32) + 2, "rem.u32 %rd4, %rd2, %rd3"), Ok(1));
    // 0xffff_fff9 is -7 as s32.
    assert_eq!(run(0xffff_fff9, 2, "div.s32 %rd4, %rd2, %rd3"), Ok(low32(-3)));
    // INT_MIN / -1 wraps to INT_MIN, its remainder is 0.
    assert_eq!(run(0x8000_0000, 0xffff_ffff, "div.s32 %rd4, %rd2, %rd3"), Ok(0x8000_0000));
    assert_eq!(run(0x8000_0000, 0xffff_ffff, "rem.s32 %rd4, %rd2, %rd3"), Ok(0));
    assert_eq!(run(i64::MIN, -1, "div.s64 %rd4, %rd2, %rd3"), Ok(i64::MIN as u64));
    assert_eq!(run(i64::MIN, -1, "rem.s64 %rd4, %rd2, %rd3"), Ok(0));
    // Unsigned minimum and equality see only the low 32 bits.
    assert_eq!(run((1 << 32) + 5, 3, "min.u32 %rd4, %rd2, %rd3"), Ok(3));
    assert_eq!(run((1 << 32) + 5, 3, "max.u32 %rd4, %rd2, %rd3"), Ok(5));
    // A logical right shift of the low 32 bits brings in zeros, not the register's bit 32.
    assert_eq!(run((1 << 32) | 0x10, 4, "shr.u32 %rd4, %rd2, %rd3"), Ok(1));
    // The shift amount is a 32-bit operand: 2^32 + 1 shifts by one.
    assert_eq!(run(1, (1 << 32) + 1, "shl.b32 %rd4, %rd2, %rd3"), Ok(2));
}

#[test]
fn comparisons_and_conversions_read_the_types_bits() {
    let setp = |a: i64, b: i64, cmp: &str| {
        let inst = format!("setp.{cmp} %p1, %rd2, %rd3;\n\tselp.b64 %rd4, 1, 0, %p1");
        let text = kernel_text(a, b, &inst).replace(".reg .b64 %rd<5>;", ".reg .b64 %rd<5>;\n\t.reg .pred %p<2>;");
        run_text(&text).expect("completes")
    };
    assert_eq!(setp((1 << 32) + 5, 5, "eq.u32"), 1);
    assert_eq!(setp((1 << 32) + 5, 6, "lo.u32"), 1);
    // An unsigned 32-bit source converts only its low 32 bits.
    let f64_bits = run((1 << 32) + 3, 0, "cvt.rn.f64.u32 %rd4, %rd2").expect("completes");
    assert_eq!(f64::from_bits(f64_bits), 3.0);
}
