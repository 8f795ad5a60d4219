//! The closed set of PTX instructions tirproof emits, each with its `Display` in PTX syntax
//! (without the guard and the trailing `;`, which `Inst` adds).
//!
//! Besides what codegen emits, the set holds what compilers emit around their pipelines and
//! the emulator runs (parsed from their PTX): widening multiplies, bit-field extraction,
//! 16-bit packing, and the warp-wide `ldmatrix` and `mma.sync` of tensor-core kernels.
//!
//! Invariants: float arithmetic always carries an explicit rounding (`.rn`) and there is no
//! contracted form other than the explicit `fma.rn`, so results are bitwise those of IEEE
//! operations in program order; `cp.async.cg` only ever copies 16 bytes (PTX allows no other
//! size for it), which `CpAsync::new` enforces.

use std::fmt;

use super::compiler_ops::{ApproxFn, FloatDiv, MmaInput, PackedHalf, ShflMode};
use super::tma::TmaOp;
use super::types::{Address, Guard, Label, Operand, Reg, StateSpace, Ty};
use super::wgmma::{ProxySpace, WgmmaMma};

/// Integer and bitwise two-operand instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOp {
    Add,
    Sub,
    /// `mul.lo`: the low half of the product (wrapping).
    MulLo,
    /// Truncating division (`div.s32` rounds toward zero).
    Div,
    /// Remainder of truncating division.
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    /// Arithmetic for signed types, logical for unsigned ones.
    Shr,
}

impl IntOp {
    fn mnemonic(self) -> &'static str {
        match self {
            IntOp::Add => "add",
            IntOp::Sub => "sub",
            IntOp::MulLo => "mul.lo",
            IntOp::Div => "div",
            IntOp::Rem => "rem",
            IntOp::Min => "min",
            IntOp::Max => "max",
            IntOp::And => "and",
            IntOp::Or => "or",
            IntOp::Xor => "xor",
            IntOp::Shl => "shl",
            IntOp::Shr => "shr",
        }
    }

    /// Bitwise instructions take the untyped `.bN` suffix (`and.b32`); `shr` keeps its sign.
    fn suffix(self, ty: Ty) -> Ty {
        match self {
            IntOp::And | IntOp::Or | IntOp::Xor | IntOp::Shl => ty.bit_type(),
            _ => ty,
        }
    }
}

/// Float two-operand instructions; all of them round to nearest even.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl FloatOp {
    fn mnemonic(self) -> &'static str {
        match self {
            FloatOp::Add => "add",
            FloatOp::Sub => "sub",
            FloatOp::Mul => "mul",
            FloatOp::Div => "div",
        }
    }
}

/// Rounding modifiers of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest even (a float result).
    Rn,
    /// Toward zero (a float result).
    Rz,
    /// To the nearest integer, ties to even (an integer result from a float).
    Rni,
    /// Toward zero to an integer (an integer result from a float).
    Rzi,
    /// To nearest, ties away from zero (`cvt.rna.tf32.f32`).
    Rna,
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rounding::Rn => ".rn",
            Rounding::Rz => ".rz",
            Rounding::Rni => ".rni",
            Rounding::Rzi => ".rzi",
            Rounding::Rna => ".rna",
        })
    }
}

/// Comparisons of `setp`. `Lo`/`Ls`/`Hi`/`Hs` are the unsigned orderings; `Neu` is the
/// float "not equal or unordered", true when an operand is NaN as TIR's `!=` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Neu,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    // The other float comparisons compilers emit: the unordered ones are true when an operand
    // is NaN as well; `Num` is true when neither is, `Nan` when either is.
    Equ,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl Cmp {
    /// Whether the comparison exists for floats only.
    pub fn float_only(self) -> bool {
        matches!(self, Cmp::Equ | Cmp::Ltu | Cmp::Leu | Cmp::Gtu | Cmp::Geu | Cmp::Num | Cmp::Nan)
    }
}

impl fmt::Display for Cmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cmp::Eq => ".eq",
            Cmp::Ne => ".ne",
            Cmp::Lt => ".lt",
            Cmp::Le => ".le",
            Cmp::Gt => ".gt",
            Cmp::Ge => ".ge",
            Cmp::Lo => ".lo",
            Cmp::Ls => ".ls",
            Cmp::Hi => ".hi",
            Cmp::Hs => ".hs",
            Cmp::Neu => ".neu",
            Cmp::Equ => ".equ",
            Cmp::Ltu => ".ltu",
            Cmp::Leu => ".leu",
            Cmp::Gtu => ".gtu",
            Cmp::Geu => ".geu",
            Cmp::Num => ".num",
            Cmp::Nan => ".nan",
        })
    }
}

/// How many elements one `ld`/`st` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    V1,
    V2,
    V4,
}

impl Width {
    /// The width of `lanes` elements, when PTX has one.
    pub fn of_lanes(lanes: usize) -> Option<Width> {
        match lanes {
            1 => Some(Width::V1),
            2 => Some(Width::V2),
            4 => Some(Width::V4),
            _ => None,
        }
    }

    pub fn lanes(self) -> usize {
        match self {
            Width::V1 => 1,
            Width::V2 => 2,
            Width::V4 => 4,
        }
    }
}

impl fmt::Display for Width {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Width::V1 => "",
            Width::V2 => ".v2",
            Width::V4 => ".v4",
        })
    }
}

/// The cache operator of `cp.async`: `.ca` caches at all levels (4, 8 or 16 bytes), `.cg`
/// bypasses L1 (16 bytes only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    Ca,
    Cg,
}

impl fmt::Display for CacheOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CacheOp::Ca => ".ca",
            CacheOp::Cg => ".cg",
        })
    }
}

/// The bytes one `cp.async` copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpSize {
    B4,
    B8,
    B16,
}

impl CpSize {
    pub fn of_bytes(bytes: u32) -> Option<CpSize> {
        match bytes {
            4 => Some(CpSize::B4),
            8 => Some(CpSize::B8),
            16 => Some(CpSize::B16),
            _ => None,
        }
    }

    pub fn bytes(self) -> u32 {
        match self {
            CpSize::B4 => 4,
            CpSize::B8 => 8,
            CpSize::B16 => 16,
        }
    }

    /// The cache operator codegen uses: `.cg` where PTX allows it (16 bytes), else `.ca`.
    pub fn preferred_cache(self) -> CacheOp {
        match self {
            CpSize::B16 => CacheOp::Cg,
            CpSize::B4 | CpSize::B8 => CacheOp::Ca,
        }
    }
}

/// `cp.async.ca/.cg.shared.global [dst], [src], size{, src_size}`: an asynchronous copy from
/// global to shared memory. With `src_size`, only that many bytes are read and the rest of the
/// destination is zero-filled.
#[derive(Clone, Debug, PartialEq)]
pub struct CpAsync {
    cache: CacheOp,
    size: CpSize,
    pub dst: Address,
    pub src: Address,
    pub src_size: Option<Operand>,
}

/// `cp.async.cg` with a size other than 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cp.async.cg copies 16 bytes only, not {} bytes", .0.bytes())]
pub struct CgNeeds16(pub CpSize);

impl CpAsync {
    pub fn new(cache: CacheOp, size: CpSize, dst: Address, src: Address) -> Result<CpAsync, CgNeeds16> {
        if cache == CacheOp::Cg && size != CpSize::B16 {
            return Err(CgNeeds16(size));
        }
        Ok(CpAsync { cache, size, dst, src, src_size: None })
    }

    pub fn with_src_size(mut self, src_size: Operand) -> CpAsync {
        self.src_size = Some(src_size);
        self
    }

    pub fn cache(&self) -> CacheOp {
        self.cache
    }

    pub fn size(&self) -> CpSize {
        self.size
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Mov {
        ty: Ty,
        dst: Reg,
        src: Operand,
    },
    Int {
        op: IntOp,
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `mad.lo`: `a * b + c`, wrapping.
    Mad {
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Not {
        ty: Ty,
        dst: Reg,
        a: Operand,
    },
    Float {
        op: FloatOp,
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `fma.rn`: `a * b + c` with one rounding.
    Fma {
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Cvt {
        dst_ty: Ty,
        src_ty: Ty,
        rounding: Option<Rounding>,
        dst: Reg,
        src: Operand,
    },
    /// `cvta.to.global.u64`: a generic address (a kernel parameter) to a global one.
    CvtaToGlobal {
        dst: Reg,
        src: Reg,
    },
    Setp {
        cmp: Cmp,
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `selp`: `pred ? a : b`.
    Selp {
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
        pred: Reg,
    },
    Bra {
        target: Label,
    },
    Ld {
        space: StateSpace,
        width: Width,
        ty: Ty,
        dst: Vec<Reg>,
        addr: Address,
    },
    St {
        space: StateSpace,
        width: Width,
        ty: Ty,
        addr: Address,
        src: Vec<Operand>,
    },
    /// `mul.wide.s32` / `.u32`: the 64-bit product of two 32-bit operands.
    MulWide {
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `mad.wide.s32` / `.u32`: the 64-bit product of two 32-bit operands plus a 64-bit one.
    MadWide {
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `bfe`: `len` bits of `a` from bit `pos`, sign-extended for signed types.
    Bfe {
        ty: Ty,
        dst: Reg,
        a: Operand,
        pos: Operand,
        len: Operand,
    },
    /// `neg`: two's complement negation, or a float's sign flipped.
    Neg {
        ty: Ty,
        dst: Reg,
        a: Operand,
    },
    /// `mov.b32 d, {lo, hi}` / `mov.b64 d, {lo, hi}`: two halves packed, the first lowest.
    Pack {
        ty: Ty,
        dst: Reg,
        parts: [Operand; 2],
    },
    /// `mov.b32 {lo, hi}, s`: a value split into its halves.
    Unpack {
        ty: Ty,
        dst: [Reg; 2],
        src: Operand,
    },
    /// `ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16`: the warp loads N 8x8 matrices of
    /// 16-bit elements, each row from the address one lane gives, into fragments spread over
    /// the lanes.
    Ldmatrix {
        trans: bool,
        dst: Vec<Reg>,
        addr: Address,
    },
    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`: the warp computes D = A * B + C
    /// for a 16x16 f16 A, a 16x8 f16 B and 16x8 f32 C and D held as fragments of its lanes
    /// (bf16 inputs: the same shape; tf32: `m16n8k8`, a 16x8 A and an 8x8 B).
    Mma {
        input: MmaInput,
        d: [Reg; 4],
        a: [Reg; 4],
        b: [Reg; 2],
        c: [Reg; 4],
    },
    CpAsync(CpAsync),
    CpAsyncCommitGroup,
    /// `cp.async.wait_group n`: wait until at most `n` of the thread's groups are pending.
    CpAsyncWaitGroup(u32),
    CpAsyncWaitAll,
    BarSync(u32),
    Ret,
    // --- Hopper TMA: warp election, mbarrier, bulk tensor copies, tensor maps (module/tma.rs) ---
    /// The Hopper asynchronous tensor-memory instructions and their companions.
    Tma(TmaOp),
    // Hopper's warpgroup MMA queue and the async-proxy fence (sm_90a).
    /// `wgmma.fence.sync.aligned`: orders the thread's register accesses before the
    /// warpgroup's next `wgmma.mma_async`.
    WgmmaFence,
    /// `wgmma.mma_async`: issued by the warpgroup, computed when its group completes.
    WgmmaMmaAsync(Box<WgmmaMma>),
    /// `wgmma.commit_group.sync.aligned`: the uncommitted `wgmma.mma_async`s become a group.
    WgmmaCommitGroup,
    /// `wgmma.wait_group.sync.aligned n`: wait until at most `n` groups are pending.
    WgmmaWaitGroup(u32),
    /// `fence.proxy.async{.space}`: orders the thread's generic-proxy accesses before later
    /// async-proxy ones (and the reverse).
    FenceProxyAsync(ProxySpace),

    // What compilers emit for sm_80 beyond codegen's set: float min/max, the approximate
    // functions and divisions, packed half-precision conversions and warp shuffles.
    /// `min`/`max` of floats (`{.ftz}{.NaN}`): a NaN operand yields the other one, or the
    /// canonical NaN with `.NaN`; -0 orders below +0.
    FloatMinMax {
        max: bool,
        ftz: bool,
        nan: bool,
        ty: Ty,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `ex2.approx{.ftz}.f32 d, a` and the other one-operand approximations.
    Approx {
        func: ApproxFn,
        ftz: bool,
        dst: Reg,
        a: Operand,
    },
    /// `div.full{.ftz}.f32` / `div.approx{.ftz}.f32`.
    DivApprox {
        div: FloatDiv,
        ftz: bool,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `cvt.rn{.relu}.f16x2.f32 d, a, b`: `a` converted into the upper half, `b` the lower.
    CvtPack {
        to: PackedHalf,
        rounding: Rounding,
        relu: bool,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `shfl.sync.MODE.b32 d{|p}, a, b, c, membermask`: a warp collective; `d` gets `a` of the
    /// source lane the mode computes from `b` and `c`, `p` whether that lane was in range.
    Shfl {
        mode: ShflMode,
        dst: Reg,
        pred: Option<Reg>,
        a: Operand,
        b: Operand,
        c: Operand,
        mask: Operand,
    },
}

impl Op {
    /// Whether the instruction needs the cp.async feature (PTX 7.0, sm_80).
    pub fn uses_cp_async(&self) -> bool {
        matches!(self, Op::CpAsync(_) | Op::CpAsyncCommitGroup | Op::CpAsyncWaitGroup(_) | Op::CpAsyncWaitAll)
    }

    /// Whether the instruction is one of Hopper's `wgmma` or `fence.proxy.async` (sm_90a).
    pub fn uses_wgmma(&self) -> bool {
        matches!(
            self,
            Op::WgmmaFence
                | Op::WgmmaMmaAsync(_)
                | Op::WgmmaCommitGroup
                | Op::WgmmaWaitGroup(_)
                | Op::FenceProxyAsync(_)
        )
    }

    /// Whether the instruction is a warp-wide matrix instruction (`ldmatrix`, `mma.sync`);
    /// their shapes and input types all need sm_80.
    pub fn uses_warp_matrix(&self) -> bool {
        matches!(self, Op::Ldmatrix { .. } | Op::Mma { .. })
    }
}

/// `{a, b}` for vectors, the single operand otherwise.
fn write_group<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    if let [one] = items {
        return one.fmt(f);
    }
    f.write_str("{")?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item.fmt(f)?;
    }
    f.write_str("}")
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Mov { ty, dst, src } => write!(f, "mov{ty} {dst}, {src}"),
            Op::Int { op, ty, dst, a, b } => write!(f, "{}{} {dst}, {a}, {b}", op.mnemonic(), op.suffix(*ty)),
            Op::Mad { ty, dst, a, b, c } => write!(f, "mad.lo{ty} {dst}, {a}, {b}, {c}"),
            Op::Not { ty, dst, a } => write!(f, "not{} {dst}, {a}", ty.bit_type()),
            Op::Float { op, ty, dst, a, b } => write!(f, "{}.rn{ty} {dst}, {a}, {b}", op.mnemonic()),
            Op::Fma { ty, dst, a, b, c } => write!(f, "fma.rn{ty} {dst}, {a}, {b}, {c}"),
            Op::Cvt { dst_ty, src_ty, rounding, dst, src } => {
                let rounding = rounding.map(|r| r.to_string()).unwrap_or_default();
                write!(f, "cvt{rounding}{dst_ty}{src_ty} {dst}, {src}")
            }
            Op::CvtaToGlobal { dst, src } => write!(f, "cvta.to.global.u64 {dst}, {src}"),
            Op::Setp { cmp, ty, dst, a, b } => write!(f, "setp{cmp}{ty} {dst}, {a}, {b}"),
            Op::Selp { ty, dst, a, b, pred } => write!(f, "selp{ty} {dst}, {a}, {b}, {pred}"),
            Op::Bra { target } => write!(f, "bra {target}"),
            Op::Ld { space, width, ty, dst, addr } => {
                write!(f, "ld{space}{width}{ty} ")?;
                write_group(f, dst)?;
                write!(f, ", {addr}")
            }
            Op::St { space, width, ty, addr, src } => {
                write!(f, "st{space}{width}{ty} {addr}, ")?;
                write_group(f, src)
            }
            Op::MulWide { ty, dst, a, b } => write!(f, "mul.wide{ty} {dst}, {a}, {b}"),
            Op::MadWide { ty, dst, a, b, c } => write!(f, "mad.wide{ty} {dst}, {a}, {b}, {c}"),
            Op::Bfe { ty, dst, a, pos, len } => write!(f, "bfe{ty} {dst}, {a}, {pos}, {len}"),
            Op::Neg { ty, dst, a } => write!(f, "neg{ty} {dst}, {a}"),
            Op::Pack { ty, dst, parts } => {
                write!(f, "mov{} {dst}, ", ty.bit_type())?;
                write_group(f, parts)
            }
            Op::Unpack { ty, dst, src } => {
                write!(f, "mov{} ", ty.bit_type())?;
                write_group(f, dst)?;
                write!(f, ", {src}")
            }
            Op::Ldmatrix { trans, dst, addr } => {
                let trans = if *trans { ".trans" } else { "" };
                write!(f, "ldmatrix.sync.aligned.m8n8.x{}{trans}.shared.b16 ", dst.len())?;
                // One matrix still prints braces: `ldmatrix` always takes a vector operand.
                write!(f, "{{")?;
                for (i, r) in dst.iter().enumerate() {
                    write!(f, "{}{r}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, "}}, {addr}")
            }
            Op::Mma { input, d, a, b, c } => {
                let (shape, ty) = (input.shape(), input.name());
                write!(f, "mma.sync.aligned.{shape}.row.col.f32.{ty}.{ty}.f32 ")?;
                for (i, group) in [&d[..], &a[..], &b[..], &c[..]].into_iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str("{")?;
                    for (k, r) in group.iter().enumerate() {
                        write!(f, "{}{r}", if k > 0 { ", " } else { "" })?;
                    }
                    f.write_str("}")?;
                }
                Ok(())
            }
            Op::CpAsync(cp) => {
                write!(f, "cp.async{}.shared.global {}, {}, {}", cp.cache, cp.dst, cp.src, cp.size.bytes())?;
                match &cp.src_size {
                    Some(size) => write!(f, ", {size}"),
                    None => Ok(()),
                }
            }
            Op::CpAsyncCommitGroup => f.write_str("cp.async.commit_group"),
            Op::CpAsyncWaitGroup(n) => write!(f, "cp.async.wait_group {n}"),
            Op::CpAsyncWaitAll => f.write_str("cp.async.wait_all"),
            Op::BarSync(id) => write!(f, "bar.sync {id}"),
            Op::Ret => f.write_str("ret"),
            // --- Hopper TMA ---
            Op::Tma(op) => op.fmt(f),
            Op::WgmmaFence => f.write_str("wgmma.fence.sync.aligned"),
            Op::WgmmaMmaAsync(mma) => mma.fmt(f),
            Op::WgmmaCommitGroup => f.write_str("wgmma.commit_group.sync.aligned"),
            Op::WgmmaWaitGroup(n) => write!(f, "wgmma.wait_group.sync.aligned {n}"),
            Op::FenceProxyAsync(space) => write!(f, "fence.proxy.async{space}"),

            // Compilers' sm_80 instructions.
            Op::FloatMinMax { max, ftz, nan, ty, dst, a, b } => {
                let name = if *max { "max" } else { "min" };
                let (ftz, nan) = (if *ftz { ".ftz" } else { "" }, if *nan { ".NaN" } else { "" });
                write!(f, "{name}{ftz}{nan}{ty} {dst}, {a}, {b}")
            }
            Op::Approx { func, ftz, dst, a } => {
                let ftz = if *ftz { ".ftz" } else { "" };
                write!(f, "{}.approx{ftz}.f32 {dst}, {a}", func.mnemonic())
            }
            Op::DivApprox { div, ftz, dst, a, b } => {
                let ftz = if *ftz { ".ftz" } else { "" };
                write!(f, "div.{}{ftz}.f32 {dst}, {a}, {b}", div.name())
            }
            Op::CvtPack { to, rounding, relu, dst, a, b } => {
                let relu = if *relu { ".relu" } else { "" };
                write!(f, "cvt{rounding}{relu}{to}.f32 {dst}, {a}, {b}")
            }
            Op::Shfl { mode, dst, pred, a, b, c, mask } => {
                write!(f, "shfl.sync{mode}.b32 {dst}")?;
                if let Some(p) = pred {
                    write!(f, "|{p}")?;
                }
                write!(f, ", {a}, {b}, {c}, {mask}")
            }
        }
    }
}

/// An instruction with its optional guard.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub guard: Option<Guard>,
    pub op: Op,
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(guard) = &self.guard {
            write!(f, "{guard} ")?;
        }
        write!(f, "{};", self.op)
    }
}
