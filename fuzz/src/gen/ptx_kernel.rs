//! Small PTX kernels of the emulator's subset, written as text from structured choices, with
//! a launch and arguments to run them with: the input of the `ptx` cargo-fuzz target.
//!
//! Every register a kernel names is declared, every branch goes to a label of the kernel and
//! every symbol names a parameter or an array, so the reader accepts every generated kernel;
//! what the instructions compute (out-of-bounds addresses, pending copies, divisions by zero,
//! loops) is left to the choices, so the emulator sees faults as often as clean runs. Two
//! shapes compilers write are drawn on purpose: a store of one value by every lane of a warp to
//! one shared word (a warp store, no race; a value per lane makes it a warp store conflict),
//! and an end after empty commits with no final wait (`cuda_pipeline.h`'s idiom).

use std::fmt::Write as _;

use arbitrary::{Result, Unstructured};
use tirproof_ir::{DataType, TypeCode};
use tirproof_machine::Tensor;
use tirproof_ptx::emu::KernelArg;

/// Registers per class: `%p0..`, `%rs0..`, `%r0..`, `%rd0..`, `%f0..`.
const REGS: u32 = 6;
/// Elements of each buffer argument at most.
const MAX_ELEMENTS: usize = 64;
/// Bytes of the kernel's `.shared` array.
const SHARED_BYTES: u32 = 256;

/// A generated kernel: its PTX text and the arguments of its parameters, in order.
#[derive(Clone, Debug)]
pub struct PtxCase {
    pub text: String,
    pub args: Vec<KernelArg>,
}

/// One of the integer types and the prefix of its registers.
const INT_TYPES: [(&str, &str); 6] =
    [("s32", "%r"), ("u32", "%r"), ("b32", "%r"), ("s64", "%rd"), ("u64", "%rd"), ("s16", "%rs")];

struct Writer<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    body: String,
    labels: u32,
}

impl Writer<'_, '_> {
    fn reg(&mut self, prefix: &str) -> Result<String> {
        Ok(format!("{prefix}{}", self.u.int_in_range(0..=REGS - 1)?))
    }

    /// A register or an immediate of the register class `prefix`, sometimes a thread index.
    fn operand(&mut self, prefix: &str) -> Result<String> {
        Ok(match self.u.int_in_range(0..=5u8)? {
            0 => format!("{}", self.u.int_in_range(-3i64..=70)?),
            1 if prefix == "%r" => "%tid.x".into(),
            2 if prefix == "%r" => "%ctaid.x".into(),
            3 => format!("{}", self.u.arbitrary::<i32>()?),
            _ => self.reg(prefix)?,
        })
    }

    fn line(&mut self, text: &str) -> Result<()> {
        let guard = match self.u.int_in_range(0..=7u8)? {
            0 => format!("@{} ", self.reg("%p")?),
            1 => format!("@!{} ", self.reg("%p")?),
            _ => String::new(),
        };
        let _ = writeln!(self.body, "\t{guard}{text};");
        Ok(())
    }

    /// A 64-bit address into buffer `%rd{base}` (set up from a parameter) or the shared array.
    fn address(&mut self, shared: bool) -> Result<String> {
        let offset = 4 * self.u.int_in_range(0..=20i64)?;
        if shared {
            return Ok(format!("[smem+{offset}]"));
        }
        let index = self.reg("%r")?;
        let base = if self.u.arbitrary()? { "%rd0" } else { "%rd1" };
        let _ = writeln!(self.body, "\tmul.wide.u32 %rd5, {index}, 4;\n\tadd.s64 %rd5, {base}, %rd5;");
        Ok(format!("[%rd5+{offset}]"))
    }

    fn instruction(&mut self) -> Result<()> {
        let (ty, prefix) = *self.u.choose(&INT_TYPES)?;
        match self.u.int_in_range(0..=18u8)? {
            0..=3 => {
                let op = *self
                    .u
                    .choose(&["add", "sub", "mul.lo", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr"])?;
                let ty = if matches!(op, "and" | "or" | "xor") && ty.starts_with('s') { "b32" } else { ty };
                let ty = if matches!(op, "shl") { "b32" } else { ty };
                let prefix = if ty == "b32" { "%r" } else { prefix };
                let (d, a, b) = (self.reg(prefix)?, self.operand(prefix)?, self.operand(prefix)?);
                self.line(&format!("{op}.{ty} {d}, {a}, {b}"))?;
            }
            4 => {
                let (d, a) = (self.reg(prefix)?, self.operand(prefix)?);
                self.line(&format!("mov.{ty} {d}, {a}"))?;
            }
            5 => {
                let cmp = *self.u.choose(&["eq", "ne", "lt", "le", "gt", "ge", "lo", "hs"])?;
                let ty = if matches!(cmp, "lo" | "hs") { "u32" } else { "s32" };
                let (d, a, b) = (self.reg("%p")?, self.operand("%r")?, self.operand("%r")?);
                self.line(&format!("setp.{cmp}.{ty} {d}, {a}, {b}"))?;
            }
            6 => {
                let (d, a, b, p) = (self.reg("%r")?, self.operand("%r")?, self.operand("%r")?, self.reg("%p")?);
                self.line(&format!("selp.b32 {d}, {a}, {b}, {p}"))?;
            }
            7 => {
                let (to, from, dst, src) = *self.u.choose(&[
                    ("s64", "s32", "%rd", "%r"),
                    ("u32", "u64", "%r", "%rd"),
                    ("s16", "s32", "%rs", "%r"),
                    ("rn.f32.s32", "", "%f", "%r"),
                    ("rzi.s32.f32", "", "%r", "%f"),
                ])?;
                let types = if from.is_empty() { to.to_string() } else { format!("{to}.{from}") };
                let (d, s) = (self.reg(dst)?, self.reg(src)?);
                self.line(&format!("cvt.{types} {d}, {s}"))?;
            }
            8 => {
                let op = *self.u.choose(&["add", "sub", "mul", "div.rn"])?;
                let (d, a, b) = (self.reg("%f")?, self.reg("%f")?, self.operand("%f")?);
                let b = if b.starts_with('%') { b } else { format!("0f{:08X}", self.u.arbitrary::<u32>()?) };
                self.line(&format!("{op}.f32 {d}, {a}, {b}"))?;
            }
            9 => {
                let (d, a, b, c) = (self.reg("%r")?, self.operand("%r")?, self.operand("%r")?, self.operand("%r")?);
                self.line(&format!("mad.lo.s32 {d}, {a}, {b}, {c}"))?;
            }
            10 => {
                let (d, a, p, l) = (self.reg("%r")?, self.operand("%r")?, self.operand("%r")?, self.operand("%r")?);
                let op = *self.u.choose(&["bfe.u32", "bfe.s32"])?;
                self.line(&format!("{op} {d}, {a}, {p}, {l}"))?;
                let (d, a) = (self.reg(prefix)?, self.operand(prefix)?);
                let op = if self.u.arbitrary()? { "neg" } else { "not" };
                let ty = if op == "not" { ty.replace(['s', 'u'], "b") } else { ty.replace(['u', 'b'], "s") };
                self.line(&format!("{op}.{ty} {d}, {a}"))?;
            }
            11 | 12 => {
                let shared = self.u.arbitrary()?;
                let space = if shared { "shared" } else { "global" };
                let addr = self.address(shared)?;
                if self.u.arbitrary()? {
                    let d = self.reg("%r")?;
                    self.line(&format!("ld.{space}.u32 {d}, {addr}"))?;
                } else {
                    let s = self.operand("%r")?;
                    self.line(&format!("st.{space}.u32 {addr}, {s}"))?;
                }
            }
            13 => {
                let dst = self.address(true)?;
                let src = self.address(false)?;
                let bytes = *self.u.choose(&["4", "8", "16"])?;
                let cache = if bytes == "16" && self.u.arbitrary()? { "cg" } else { "ca" };
                self.line(&format!("cp.async.{cache}.shared.global {dst}, {src}, {bytes}"))?;
            }
            14 => {
                let text = match self.u.int_in_range(0..=3u8)? {
                    0 => "cp.async.commit_group".to_string(),
                    1 => "cp.async.wait_all".to_string(),
                    _ => format!("cp.async.wait_group {}", self.u.int_in_range(0..=3u8)?),
                };
                self.line(&text)?;
            }
            15 => self.line("bar.sync 0")?,
            18 => {
                // Every lane of the warp (or the lanes below a bound) stores to one word: one
                // value (uniform in the warp), or one per lane.
                let addr = self.address(true)?;
                let value = match self.u.int_in_range(0..=3u8)? {
                    0 => "%tid.x".to_string(),
                    1 => "%ctaid.x".to_string(),
                    _ => format!("{}", self.u.int_in_range(-3i64..=70)?),
                };
                let bound = self.u.int_in_range(1..=32u32)?;
                let _ = writeln!(
                    self.body,
                    "	setp.lt.u32 %p5, %tid.x, {bound};
	@%p5 st.shared.u32 {addr}, {value};"
                );
            }
            16 => {
                let _ = writeln!(self.body, "$L{}:", self.labels);
                self.labels += 1;
            }
            _ => {
                let target = self.u.int_in_range(0..=self.labels)?;
                // A forward branch goes to a label defined at the end.
                self.line(&format!("bra $L{}", if target == self.labels { 9999 } else { target }))?;
            }
        }
        Ok(())
    }
}

/// A generated kernel with at most `max_insts` instructions (besides setup) and its arguments.
pub fn ptx_kernel(u: &mut Unstructured, max_insts: usize) -> Result<PtxCase> {
    let block = *u.choose(&[1u32, 2, 4, 32, 33, 64])?;
    let grid = u.int_in_range(1..=3u32)?;
    let mut writer = Writer { u, body: String::new(), labels: 0 };
    let insts = writer.u.int_in_range(0..=max_insts)?;
    for _ in 0..insts {
        writer.instruction()?;
    }
    // Sometimes the end of a pipeline whose last iterations copy nothing: empty groups, and
    // no wait after them.
    if writer.u.ratio(1, 4)? {
        for _ in 0..writer.u.int_in_range(1..=3u8)? {
            let _ = writeln!(writer.body, "	cp.async.commit_group;");
        }
    }
    let Writer { u, body, .. } = writer;
    let mut text = String::new();
    let _ = write!(
        text,
        ".version 7.0\n.target sm_80\n.address_size 64\n\n// launch: grid {grid}, 1, 1\n.visible .entry k(\n\
         \t.param .u64 k_param_0,\n\t.param .u64 k_param_1,\n\t.param .u32 k_param_2\n)\n.reqntid {block}, 1, 1\n{{\n\
         \t.reg .pred %p<{REGS}>;\n\t.reg .b16 %rs<{REGS}>;\n\t.reg .b32 %r<{REGS}>;\n\t.reg .b64 %rd<{REGS}>;\n\
         \t.reg .f32 %f<{REGS}>;\n\t.shared .align 16 .b8 smem[{SHARED_BYTES}];\n\n\
         \tld.param.u64 %rd0, [k_param_0];\n\tld.param.u64 %rd1, [k_param_1];\n\tld.param.u32 %r0, [k_param_2];\n\
         {body}$L9999:\n\tret;\n}}\n"
    );
    let mut args = Vec::new();
    for dtype in [DataType::new(TypeCode::Int, 32, 1), DataType::new(TypeCode::Float, 32, 1)] {
        let len = u.int_in_range(1..=MAX_ELEMENTS)?;
        let values: Vec<i64> = (0..len).map(|i| i as i64 - 3).collect();
        let tensor = Tensor::from_i64(dtype, vec![len], &values).map_err(|_| arbitrary::Error::IncorrectFormat)?;
        args.push(KernelArg::Buffer(tensor));
    }
    args.push(KernelArg::Scalar(u64::from(u.int_in_range(0..=70u32)?)));
    Ok(PtxCase { text, args })
}
