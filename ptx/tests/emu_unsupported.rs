//! What the emulator does not model, met while running, is an error at the instruction that
//! met it (its PTX line and text), not at the kernel.

use tirproof_ir::{DataType, TypeCode};
use tirproof_machine::Tensor;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuError, KernelArg};
use tirproof_ptx::parse::parse;

const KERNEL: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b16 %rs<2>;\n\t.reg .b64 %rd<2>;\n\n\tld.param.u64 %rd1, [k_param_0];\n\tld.global.u8 %rs1, [%rd1];\n\tret;\n}\n";

#[test]
fn a_byte_load_from_a_buffer_of_words_is_unsupported_at_its_line() {
    let parsed = parse(KERNEL).unwrap_or_else(|e| panic!("{e}"));
    let buffer = Tensor::from_i64(DataType::new(TypeCode::Int, 32, 1), vec![4], &[1, 2, 3, 4]).expect("a tensor");
    let args = [KernelArg::Buffer(buffer)];
    let error = run_kernel(&parsed.module.kernels[0], Some(&parsed.lines[0]), &args, &EmuConfig::default())
        .expect_err("a byte access to 4-byte elements");
    let line = KERNEL.lines().position(|l| l.contains("ld.global.u8")).expect("the load") + 1;
    assert_eq!(error.line(), u32::try_from(line).ok(), "{error}");
    match &error {
        EmuError::UnsupportedAt { inst, what, .. } => {
            assert!(inst.contains("ld.global.u8"), "{inst}");
            assert!(what.contains("an access of 1 bytes to .global memory of 4-byte elements"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().starts_with(&format!("line {line}: unsupported:")), "{error}");
}
