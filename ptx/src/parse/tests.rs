//! Parser tests: the printer's output round-trips, compiler-written cp.async forms parse, and
//! bad text gets located errors, never a panic.

use super::*;
use crate::module::print;

const TRITON_STYLE: &str = "//\n.version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\t.shared .align 16 .b8 smem[64];\n\n\tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, smem;\n\tcp.async.cg.shared.global [%r1], [%rd1], 16, %r3;\n\tcp.async.commit_group;\n\tcp.async.wait_all;\n$L__BB0_2:\n\t@!%p1 bra $L__BB0_2;\n\tret;\n}\n";

#[test]
fn compiler_style_cp_async_parses() {
    let parsed = parse(&TRITON_STYLE.replace("\t@!%p1", "\t.reg .pred %p<2>;\n\t@!%p1")).unwrap();
    let kernel = &parsed.module.kernels[0];
    let ops: Vec<&Op> =
        kernel.body.iter().filter_map(|l| if let Line::Inst(i) = l { Some(&i.op) } else { None }).collect();
    let Op::CpAsync(cp) = ops[2] else { panic!("{ops:?}") };
    assert_eq!(
        (cp.cache(), cp.size(), cp.src_size.clone()),
        (CacheOp::Cg, CpSize::B16, Some(Operand::Reg(Reg { class: RegClass::B32, index: 3 })))
    );
    assert_eq!(ops[4], &Op::CpAsyncWaitAll);
    assert!(matches!(kernel.body.iter().find(|l| matches!(l, Line::Label(_))), Some(Line::Label(_))));
    assert_eq!(parsed.lines[0].len(), kernel.body.len());
    // What we parsed prints, and the print parses back to the same text.
    let text = print(&parsed.module).unwrap();
    assert_eq!(print(&parse(&text).unwrap().module).unwrap(), text);
}

#[test]
fn errors_are_located() {
    let cases = [
        (
            "\tcp.async.cg.shared.global [%r1], [%rd1], 16, %r3;",
            "\tcp.async.cg.shared.global [%r1], [%rd1], 8;",
            "16:43: cp.async.cg copies 16 bytes only",
        ),
        ("\tcp.async.commit_group;", "\tfrobnicate.b32 %r1;", "17:2: unsupported instruction `frobnicate.b32`"),
        ("\tcp.async.commit_group;", "\tcp.async.commit_group", "18:2: expected `;`"),
        ("\tmov.u32 %r1, smem;", "\tmov.u32 %q1, smem;", "15:10: expected a register"),
        (".target sm_80", ".target sm_70", "3:9: unknown architecture `sm_70`"),
    ];
    for (from, to, expected) in cases {
        let text = TRITON_STYLE.replace(from, to);
        let error = parse(&text).unwrap_err();
        assert!(error.to_string().starts_with(expected), "{error} (expected {expected})");
    }
}

#[test]
fn truncated_text_never_panics() {
    for end in 0..TRITON_STYLE.len() {
        if TRITON_STYLE.is_char_boundary(end) {
            let _ = parse(&TRITON_STYLE[..end]);
        }
    }
    assert!(parse("").is_err());
}
