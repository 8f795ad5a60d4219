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

/// Debug information, pointer parameter attributes, a module-level `.extern .shared` array
/// and the instructions compilers emit around tensor-core pipelines.
const COMPILER_FORMS: &str = "//\n.version 8.0\n.target sm_80\n.address_size 64\n.file 1 \"kernel.py\"\n.extern .shared .align 16 .b8 global_smem[];\n\n.visible .entry k(\n\t.param .u64 .ptr .global .align 1 k_param_0,\n\t.param .u32 k_param_1\n)\n.reqntid 32\n{\n\t.reg .pred %p<2>;\n\t.reg .b16 %rs<3>;\n\t.reg .b32 %r<30>;\n\t.reg .b64 %rd<4>;\n\t.loc 1 12 7\n\t.pragma \"nounroll\";\n\tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.s32 %rd2, %r1, 4;\n\tmad.wide.u32 %rd3, %r1, 2, %rd1;\n\tbfe.u32 %r2, %r1, 2, 3;\n\tneg.s32 %r3, %r2;\n\tmov.b32 %r4, {%rs1, %rs2};\n\tmov.b32 {%rs1, %rs2}, %r4;\n\tand.pred %p1, %p1, %p1;\n\tmov.b32 %r5, global_smem;\n\tldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r6, %r7, %r8, %r9}, [%r5+64];\n\tldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r5];\n\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { %r11, %r12, %r13, %r14 }, { %r15, %r16, %r17, %r18 }, { %r19, %r20 }, { %r11, %r12, %r13, %r14 };\n\tbra.uni $L__BB0_1;\n$L__BB0_1:\n\tret;\n}\n\t.section\t.debug_abbrev\n\t{\n.b8 1\n.b8 17\n\t}\n\t.section\t.debug_macinfo\t{\t}\n";

#[test]
fn compiler_forms_parse_and_round_trip() {
    let parsed = parse(COMPILER_FORMS).unwrap_or_else(|e| panic!("{e}"));
    let kernel = &parsed.module.kernels[0];
    assert!(kernel.arrays.iter().any(|a| a.dynamic && a.name == "global_smem"));
    assert_eq!(kernel.params.len(), 2);
    let ops: Vec<&Op> =
        kernel.body.iter().filter_map(|l| if let Line::Inst(i) = l { Some(&i.op) } else { None }).collect();
    assert!(ops.iter().any(|op| matches!(op, Op::MulWide { ty: Ty::S32, .. })));
    assert!(ops.iter().any(|op| matches!(op, Op::MadWide { ty: Ty::U32, .. })));
    assert!(ops.iter().any(|op| matches!(op, Op::Bfe { .. })));
    assert!(ops.iter().any(|op| matches!(op, Op::Pack { .. })));
    assert!(ops.iter().any(|op| matches!(op, Op::Unpack { .. })));
    assert!(ops.iter().any(|op| matches!(op, Op::Ldmatrix { trans: true, dst, .. } if dst.len() == 4)));
    assert!(ops.iter().any(|op| matches!(op, Op::Mma { .. })));
    let text = print(&parsed.module).unwrap();
    assert!(text.contains(".extern .shared .align 16 .b8 global_smem[];"), "{text}");
    assert_eq!(print(&parse(&text).unwrap().module).unwrap(), text);
}

#[test]
fn malformed_warp_instructions_are_located() {
    let cases = [
        ("{%r6, %r7, %r8, %r9}, [%r5+64]", "{%r6, %r7}, [%r5+64]", "ldmatrix .x4 loads 4 registers, not 2"),
        ("{ %r19, %r20 }", "{ %r19 }", "the B fragment is 2 registers, not 1"),
        (".m16n8k16.row.col", ".m16n8k8.row.col", "unsupported instruction `mma.sync.aligned.m16n8k8"),
    ];
    for (from, to, expected) in cases {
        let error = parse(&COMPILER_FORMS.replace(from, to)).unwrap_err();
        assert!(error.line > 0 && error.to_string().contains(expected), "{error} (expected {expected})");
    }
}

#[test]
fn block_directives_are_recorded_and_print_back() {
    let header = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{";
    for (directive, reqntid, maxntid) in
        [(".reqntid 128", Some([128, 1, 1]), None), (".maxntid 64, 2", None, Some([64, 2, 1])), ("", None, None)]
    {
        let declared = TRITON_STYLE.replace("\t@!%p1", "\t.reg .pred %p<2>;\n\t@!%p1");
        let text = declared.replace(header, &header.replace(")\n{", &format!(")\n{directive}\n{{")));
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{directive}: {e}"));
        let kernel = &parsed.module.kernels[0];
        assert_eq!(kernel.directives, BlockDirectives { reqntid, maxntid }, "{directive}");
        assert_eq!(kernel.launch.block, reqntid.or(maxntid).unwrap_or([1, 1, 1]), "{directive}");
        let printed = print(&parsed.module).unwrap();
        assert_eq!(parse(&printed).unwrap().module.kernels[0].directives, kernel.directives, "{printed}");
    }
}

/// A kernel that parses; each case below breaks it in one place.
const CHECKED: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n.reqntid 32\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\t.shared .align 16 .b8 smem[64];\n\n\tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, smem;\n\tsetp.eq.u32 %p1, %r1, 0;\n$L1:\n\t@%p1 bra $L1;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";

/// `line:col` of the first `token` on the `nth` (from 1) line of `text` that holds `token`.
fn position_of(text: &str, token: &str, nth: usize) -> String {
    let (index, line) = text.lines().enumerate().filter(|(_, l)| l.contains(token)).nth(nth - 1).expect("the token");
    let col = line[..line.find(token).expect("the token")].chars().count() + 1;
    format!("{}:{col}", index + 1)
}

#[test]
fn misdeclared_kernels_are_located_errors() {
    assert!(parse(CHECKED).is_ok(), "{:?}", parse(CHECKED));
    let kernel = &CHECKED[CHECKED.find(".visible").expect("a kernel")..];
    let twice = format!("{CHECKED}{kernel}");
    // (the text, the token the error is at and its occurrence, the message)
    let cases = [
        (twice.clone(), " k(", 2, "the kernel `k` is defined twice"),
        (CHECKED.replace("k_param_1", "k_param_0"), "k_param_0", 2, "the parameter `k_param_0` is declared twice"),
        (CHECKED.replace("$L1:\n", "$L1:\n$L1:\n"), "$L1:", 2, "the label `$L1` is defined twice in the kernel"),
        (
            CHECKED.replace("%r<4>", "%r<1>"),
            "%r1",
            1,
            "the register `%r1` is not declared (`.reg` declares %r0 to %r0)",
        ),
        (CHECKED.replace("\t.reg .pred %p<2>;\n", ""), "%p1", 1, "the register `%p1` is not declared (no `.reg`"),
        (CHECKED.replace(".reqntid 32", ".reqntid 0"), " 0", 1, "a block dimension must be at least 1 thread, not 0"),
        (CHECKED.replace(".reqntid 32", ".reqntid 32, 0"), " 0", 1, "a block dimension must be at least 1 thread"),
        (CHECKED.replace(".reqntid 32", ".maxntid 0, 1, 1"), " 0", 1, "a block dimension must be at least 1 thread"),
        (CHECKED.replace("bra $L1", "bra $L4"), "$L4", 1, "a branch to `$L4`, a label the kernel `k` does not define"),
        (CHECKED.replace("bra $L1", "bra $LBB0"), "$LBB0", 1, "a branch to `$LBB0`, a label the kernel `k` does not"),
        (CHECKED.replace("[k_param_0]", "[%rd2]"), "%rd2", 1, "a parameter load through a register is not supported"),
        (CHECKED.replace("[k_param_0]", "[k_param_9]"), "k_param_9", 1, "`k_param_9` is not a parameter of the kernel"),
        (
            CHECKED.replace("ld.param.u64 %rd1, [k_param_0]", "st.param.u64 [k_param_0], %rd1"),
            "st.param",
            1,
            "a store to the parameter space is not supported",
        ),
        (
            CHECKED.replace("ld.param.u64 %rd1, [k_param_0]", "ld.param.v2.u32 {%r1, %r2}, [k_param_1]"),
            "ld.param",
            1,
            "a vector load from the parameter space is not supported",
        ),
        (CHECKED.replace("%r1, smem", "%r1, smen"), "smen", 1, "`smen` names no array of the kernel `k`"),
        (CHECKED.replace("%r1, smem", "%r1, k_param_1"), "k_param_1", 2, "the parameter `k_param_1` is read only by"),
    ];
    for (text, token, nth, message) in cases {
        let error = parse(&text).expect_err(message);
        let mut at = position_of(&text, token, nth);
        if token.starts_with(' ') {
            // The error is at the token after the space.
            let (line, col) = at.split_once(':').expect("line:col");
            at = format!("{line}:{}", col.parse::<u32>().expect("a column") + 1);
        }
        let expected = format!("{at}: {message}");
        assert!(error.to_string().starts_with(&expected), "{error} (expected {expected})");
    }
}

#[test]
fn declarations_may_follow_uses_and_name_single_registers() {
    let late = CHECKED.replace("\t.reg .pred %p<2>;\n", "").replace("\tret;", "\tret;\n\t.reg .pred %p0, %p1;");
    assert!(parse(&late).is_ok(), "{:?}", parse(&late));
    // Labels are the kernel's own: two kernels may each define `$L1`.
    let second = CHECKED[CHECKED.find(".visible").expect("a kernel")..].replace("entry k(", "entry k2(");
    assert!(parse(&format!("{CHECKED}{second}")).is_ok());
}

// Hopper's warpgroup MMA and the async-proxy fence.
const WGMMA_FORMS: &str = "//\n.version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n\tfence.proxy.async.shared::cta;\n\tfence.proxy.async;\n\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1, 1, -1, 0, 1;\n\twgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, %rd2, 0, 1, 1, 1;\n\twgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%r1, %r2, %r3, %r4}, %rd1, %rd2, 1, 1, 1;\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 1;\n\tret;\n}\n";

#[test]
fn wgmma_forms_parse_and_round_trip() {
    let parsed = parse(WGMMA_FORMS).unwrap_or_else(|e| panic!("{e}"));
    let ops: Vec<&Op> = parsed.module.kernels[0]
        .body
        .iter()
        .filter_map(|l| if let Line::Inst(i) = l { Some(&i.op) } else { None })
        .collect();
    assert_eq!(ops[0], &Op::FenceProxyAsync(ProxySpace::SharedCta));
    assert_eq!(ops[1], &Op::FenceProxyAsync(ProxySpace::All));
    let Op::WgmmaMmaAsync(mma) = ops[3] else { panic!("{ops:?}") };
    assert_eq!((mma.n, mma.input, mma.negate_b, mma.trans_a, mma.trans_b), (8, WgmmaInput::F16, true, false, true));
    assert!(matches!(ops[4], Op::WgmmaMmaAsync(m) if matches!(m.a, WgmmaA::Regs(_)) && m.scale_d == Operand::Imm(0)));
    assert_eq!(ops[7], &Op::WgmmaWaitGroup(1));
    let text = print(&parsed.module).unwrap();
    assert!(text.contains(".target sm_90a"), "{text}");
    assert_eq!(print(&parse(&text).unwrap().module).unwrap(), text);
}

#[test]
fn malformed_wgmma_is_located() {
    let cases = [
        (
            "{%r1,%r2,%r3,%r4}, %rd1",
            "{%r1,%r2,%r3}, %rd1",
            "wgmma .m64n8 with f32 accumulators has 4 D registers, not 3",
        ),
        ("%p1, 1, -1, 0, 1;", "%p1, 1, -1, 0;", "takes imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b"),
        ("%p1, 1, -1, 0, 1;", "%p1, 2, -1, 0, 1;", "a wgmma scale immediate is 1 or -1"),
        ("%rd2, 1, 1, 1;", "%rd2, 1, 1, 1, 0;", "takes imm-scale-a, imm-scale-b after scale-d"),
        ("m64n8k8.f32.tf32", "m64n8k16.f32.tf32", "unsupported instruction `wgmma.mma_async"),
        ("fence.proxy.async;", "fence.proxy.async.shared::gpu;", "unsupported instruction `fence.proxy.async"),
    ];
    for (from, to, expected) in cases {
        let error = parse(&WGMMA_FORMS.replace(from, to)).unwrap_err();
        assert!(error.line > 0 && error.to_string().contains(expected), "{error} (expected {expected})");
    }
}

/// The instructions compilers emit for sm_80 beyond codegen's set, each form once.
const SM80_FORMS: &str = include_str!("../../tests/fixtures/sm80_forms.ptx");

#[test]
fn compiler_sm80_forms_parse_and_round_trip() {
    let parsed = parse(SM80_FORMS).unwrap_or_else(|e| panic!("{e}"));
    let ops: Vec<&Op> = parsed.module.kernels[0]
        .body
        .iter()
        .filter_map(|l| if let Line::Inst(i) = l { Some(&i.op) } else { None })
        .collect();
    let has = |f: &dyn Fn(&Op) -> bool| ops.iter().any(|op| f(op));
    assert!(has(&|op| matches!(op, Op::FloatMinMax { max: false, ftz: true, nan: true, ty: Ty::F32, .. })));
    assert!(has(&|op| matches!(op, Op::FloatMinMax { max: true, ty: Ty::F64, .. })));
    for func in ApproxFn::ALL {
        assert!(has(&|op| matches!(op, Op::Approx { func: f, .. } if *f == func)), "{func:?}");
    }
    assert!(has(&|op| matches!(op, Op::DivApprox { div: FloatDiv::Full, ftz: false, .. })));
    assert!(has(&|op| matches!(op, Op::DivApprox { div: FloatDiv::Approx, ftz: true, .. })));
    assert!(has(&|op| matches!(op, Op::Float { op: FloatOp::Div, .. })));
    assert!(has(&|op| matches!(op, Op::CvtPack { to: PackedHalf::Bf16x2, rounding: Rounding::Rz, relu: true, .. })));
    assert!(has(&|op| matches!(op, Op::Cvt { dst_ty: Ty::Tf32, rounding: Some(Rounding::Rna), .. })));
    assert!(has(&|op| matches!(op, Op::Cvt { dst_ty: Ty::F32, src_ty: Ty::Bf16, .. })));
    assert!(has(&|op| matches!(op, Op::Shfl { mode: ShflMode::Idx, pred: Some(_), .. })));
    assert!(has(&|op| matches!(op, Op::Shfl { mode: ShflMode::Down, pred: None, .. })));
    assert!(has(&|op| matches!(op, Op::Mma { input: MmaInput::Bf16, .. })));
    assert!(has(&|op| matches!(op, Op::Mma { input: MmaInput::Tf32, .. })));
    assert!(has(&|op| matches!(op, Op::Setp { cmp: Cmp::Geu, ty: Ty::F32, .. })));
    assert!(has(&|op| matches!(op, Op::Setp { cmp: Cmp::Nan, .. })));
    let text = print(&parsed.module).unwrap();
    // `cvt.f32.bf16` needs PTX 7.1.
    assert!(text.contains(".version 7.1\n"), "{text}");
    for form in [
        "min.ftz.NaN.f32 %r1, %r2, 0fFF800000;",
        "shfl.sync.idx.b32 %r9|%p1, %r8, %r2, 31, %r3;",
        "cvt.rz.relu.bf16x2.f32",
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {",
    ] {
        assert!(text.contains(form), "missing {form:?} in\n{text}");
    }
    let reparsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(reparsed.module.kernels, parsed.module.kernels);
    assert_eq!(print(&reparsed.module).unwrap(), text);
}

#[test]
fn forms_outside_the_model_are_refused_at_the_instruction() {
    for form in [
        "add.ftz.f32 %r1, %r2, %r3;",
        "mul.rz.f32 %r1, %r2, %r3;",
        "max.ftz.f64 %rd1, %rd1, %rd2;",
        "max.f16 %rs1, %rs1, %rs2;",
        "tanh.approx.ftz.f32 %r1, %r2;",
        "ex2.approx.f16 %rs1, %rs2;",
        "div.full.f64 %rd1, %rd1, %rd2;",
        "cvt.rna.f16.f32 %rs1, %r2;",
        "cvt.f32.tf32 %r1, %r2;",
        "cvt.rni.f16x2.f32 %r1, %r2, %r3;",
        "shfl.sync.rot.b32 %r1, %r2, 1, 31, -1;",
        "fma.rn.bf16 %rs1, %rs1, %rs1, %rs1;",
        "bra.foo $L__BB0_1;",
        "setp.ltu.s32 %p1, %r1, %r2;",
        "setp.lt.bf16 %p1, %rs1, %rs2;",
        "cvt.rn.bf16.s32 %rs1, %r1;",
        "cvt.f16.bf16 %rs1, %rs2;",
        "setp.gt.ftz.f32 %p1, %r1, %r2;",
    ] {
        let text = SM80_FORMS.replace("\tmax.f32 %r1, %r2, %r3;", &format!("\t{form}"));
        let error = parse(&text).expect_err(form);
        let opcode = form.split(' ').next().unwrap_or_default();
        assert!(error.to_string().starts_with(&format!("15:2: unsupported instruction `{opcode}`")), "{form}: {error}");
    }
    let error =
        parse(&SM80_FORMS.replace(".param .u64 k_param_0", ".param .bf16 k_param_0")).expect_err("a bf16 parameter");
    assert!(error.to_string().starts_with("7:9: expected a type such as `.u64`, found `.bf16`"), "{error}");
}

#[test]
fn a_sink_half_of_an_unpack_is_a_fresh_register() {
    let text = "//\n.version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n\t.reg .b16 %rs<2>;\n\
                \t.reg .b32 %r<2>;\n\n\tmov.b32 %r1, 7;\n\tmov.b32 {_, %rs1}, %r1;\n\tmov.b32 {%rs0, _}, %r1;\n\tret;\n}\n";
    let parsed = parse(text).unwrap();
    let unpacks: Vec<[Reg; 2]> = parsed.module.kernels[0]
        .body
        .iter()
        .filter_map(|l| match l {
            Line::Inst(Inst { op: Op::Unpack { dst, .. }, .. }) => Some(*dst),
            _ => None,
        })
        .collect();
    // Each `_` is its own register past the kernel's `%rs<2>`, never one the kernel names.
    let fresh = |index| Reg { class: RegClass::B16, index };
    assert_eq!(unpacks, vec![[fresh(2), fresh(1)], [fresh(0), fresh(3)]]);
    let printed = print(&parsed.module).unwrap();
    assert_eq!(print(&parse(&printed).unwrap().module).unwrap(), printed);
}

#[test]
fn module_level_global_data_is_dropped_and_a_use_of_it_refused() {
    let data = ".global .align 1 .b8 _$_str[4] = {95, 95, 67, 0};\n";
    let base = TRITON_STYLE.replace("\t@!%p1", "\t.reg .pred %p<2>;\n\t@!%p1");
    let unused = base.replace(".address_size 64\n", &format!(".address_size 64\n{data}"));
    assert!(parse(&unused).is_ok());
    let used = unused.replace("\tmov.u32 %r1, smem;", "\tmov.u32 %r1, _$_str;");
    let error = parse(&used).unwrap_err().to_string();
    assert!(error.contains("`_$_str` names no array"), "{error}");
    let unterminated = base.replace(".visible .entry k(", ".global .b8 x[1] = {0}");
    assert!(parse(&unterminated).is_err());
}
