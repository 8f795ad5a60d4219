//! A typed PTX module: the target architecture, kernels with their parameters, arrays of the
//! shared and local state spaces, register counts, launch shape and a body of labels,
//! instructions, comments and source lines (`.loc`). `print` writes it as PTX text.
//!
//! Invariants: registers are numbered per class from 0 and a kernel declares exactly the
//! registers its body can name (`Kernel::reg_counts`); `.version` and `.target` are derived
//! from the architecture and the features the module uses, never written by hand.

mod compiler_ops;
mod inst;
mod print;
mod tma;
mod types;
mod wgmma;

pub use compiler_ops::{ApproxFn, Approximate, FloatDiv, MmaInput, PackedHalf, ShflMode};
pub use inst::{CacheOp, CgNeeds16, Cmp, CpAsync, CpSize, FloatOp, Inst, IntOp, Op, Rounding, Width};
pub use print::{print, print_with_lines};
pub use tma::{MbarrierOp, TensorCoords, TensormapField, TensormapSpace, TmaOp, WaitKind, WaitOn};
pub use types::{AddrBase, Address, Dim, Guard, Label, Operand, Reg, RegClass, Special, StateSpace, Ty};
pub use wgmma::{ProxySpace, WgmmaA, WgmmaFormError, WgmmaInput, WgmmaMma};

use std::fmt;
use std::str::FromStr;

/// The GPU architecture a module targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Ampere: the first with cp.async.
    #[default]
    Sm80,
    /// Hopper.
    Sm90,
    /// Hopper with its architecture-specific features (`wgmma`, `setmaxnreg`): what Triton and
    /// nvcc target for sm_90 kernels that use them. Read from PTX; codegen does not emit it.
    Sm90a,
}

impl Arch {
    /// The architectures codegen targets.
    pub const ALL: [Arch; 2] = [Arch::Sm80, Arch::Sm90];
    /// Every architecture a module read from PTX may target.
    pub const READ: [Arch; 3] = [Arch::Sm80, Arch::Sm90, Arch::Sm90a];

    /// The first PTX ISA version that knows the architecture.
    pub fn min_version(self) -> PtxVersion {
        match self {
            Arch::Sm80 => PtxVersion { major: 7, minor: 0 },
            Arch::Sm90 => PtxVersion { major: 7, minor: 8 },
            Arch::Sm90a => PtxVersion { major: 8, minor: 0 },
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Arch::Sm80 => "sm_80",
            Arch::Sm90 => "sm_90",
            Arch::Sm90a => "sm_90a",
        })
    }
}

/// An architecture name that is not one we target.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown architecture `{0}` (expected sm_80, sm_90 or sm_90a)")]
pub struct UnknownArch(pub String);

impl FromStr for Arch {
    type Err = UnknownArch;

    fn from_str(s: &str) -> Result<Arch, UnknownArch> {
        Arch::READ.into_iter().find(|a| a.to_string() == s).ok_or_else(|| UnknownArch(s.to_string()))
    }
}

/// A PTX ISA version (`.version 7.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A language feature with a minimum PTX version and architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `cp.async` and its group instructions: PTX 7.0, sm_80.
    CpAsync,
    /// `ldmatrix` and `mma.sync.m16n8k16` with f16 inputs: PTX 7.0, sm_80.
    WarpMatrix,
    /// `cvt.f32.bf16`: PTX 7.1, sm_80 (the other bf16 and tf32 forms read from compilers' PTX
    /// need 7.0).
    Bf16ToF32,
    /// `wgmma` and `fence.proxy.async`: PTX 8.0, sm_90a.
    Wgmma,
    // --- Hopper TMA ---
    /// `elect.sync`, `mbarrier` with transaction counts, `cp.async.bulk.tensor`: PTX 8.0, sm_90.
    Tma,
    /// `tensormap.replace` and `tensormap.cp_fenceproxy`: PTX 8.3, sm_90a.
    Tensormap,
    /// `cp.async.bulk.tensor` into `.shared::cta` (rather than `.shared::cluster`): PTX 8.6.
    BulkTensorCta,
}

impl Feature {
    pub const ALL: [Feature; 7] = [
        Feature::CpAsync,
        Feature::WarpMatrix,
        Feature::Bf16ToF32,
        Feature::Wgmma,
        Feature::Tma,
        Feature::Tensormap,
        Feature::BulkTensorCta,
    ];

    pub fn min_version(self) -> PtxVersion {
        match self {
            Feature::CpAsync | Feature::WarpMatrix => PtxVersion { major: 7, minor: 0 },
            Feature::Bf16ToF32 => PtxVersion { major: 7, minor: 1 },
            Feature::Tma => PtxVersion { major: 8, minor: 0 },
            Feature::Tensormap => PtxVersion { major: 8, minor: 3 },
            Feature::BulkTensorCta => PtxVersion { major: 8, minor: 6 },
            Feature::Wgmma => PtxVersion { major: 8, minor: 0 },
        }
    }

    pub fn min_arch(self) -> Arch {
        match self {
            Feature::CpAsync | Feature::WarpMatrix | Feature::Bf16ToF32 => Arch::Sm80,
            Feature::Tma => Arch::Sm90,
            Feature::Tensormap => Arch::Sm90a,
            Feature::BulkTensorCta => Arch::Sm90,
            Feature::Wgmma => Arch::Sm90a,
        }
    }
}

/// A kernel parameter: `.param .u64 name` (a buffer's address) or a scalar, or a byte array
/// passed by value (`.param .align 64 .b8 name[128]`: a host tensor map, module/tma.rs).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// The bytes of a byte-array parameter (`ty` is then `.b8`); its name is its address.
    pub array: Option<u32>,
}

/// An array of the shared or local state space: `.shared .align 16 .b8 name[bytes];`.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub space: StateSpace,
    pub name: String,
    pub align: u32,
    pub bytes: u64,
    /// `.extern .shared .b8 name[];`: the block's dynamic shared memory, sized at launch
    /// (`Launch::dynamic_shared`); `bytes` is then 0.
    pub dynamic: bool,
    /// The TIR buffer the array holds, where codegen made it (PTX text does not say).
    pub origin: Option<ArrayOrigin>,
}

/// The TIR buffer behind an array: its name and the bytes of one element, so that a byte
/// offset into the array reads as the buffer's element index (`S[12]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayOrigin {
    pub buffer: String,
    pub element_bytes: u32,
}

/// A source position the instructions after it were compiled from (`.loc FILE LINE COL`), in
/// the kernel's source file (`Kernel::source_file`). Line and column are 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    pub line: u32,
    pub col: u32,
}

/// One line of a kernel body.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    Label(Label),
    Inst(Inst),
    /// A `//` comment: what codegen wants a reader of the PTX to know at this point.
    Comment(String),
    /// `.loc`: the lines after it, up to the next one, come from this source position.
    Loc(SourceLoc),
}

/// The launch shape a kernel was generated for: threads per block and blocks per grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub block: [u32; 3],
    pub grid: [u32; 3],
    /// Bytes of dynamic shared memory per block (the size of the `.extern .shared` array).
    pub dynamic_shared: u64,
}

impl Default for Launch {
    fn default() -> Self {
        Launch { block: [1; 3], grid: [1; 3], dynamic_shared: 0 }
    }
}

/// Three launch dimensions (x, y, z) of a block or a grid; prints as `x,y,z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims(pub [u32; 3]);

impl Dims {
    /// How many threads (or blocks) the dimensions hold.
    pub fn count(self) -> u64 {
        self.0.iter().map(|d| u64::from(*d)).product()
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.0;
        write!(f, "{x},{y},{z}")
    }
}

/// What a kernel's header says of the threads of its blocks, as written (dimensions left out
/// are 1): `.reqntid` (every launch has exactly this block) and `.maxntid` (no launch has more
/// threads in a block than these hold).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockDirectives {
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
}

/// An `.entry`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    pub arrays: Vec<Array>,
    /// The launch the kernel runs with (from codegen, or the parser's defaults).
    pub launch: Launch,
    /// The header's block directives, which every launch must satisfy (`crate::launch`).
    pub directives: BlockDirectives,
    /// The file the body's `Line::Loc`s point into (`.file`); `None`: the body has none.
    pub source_file: Option<String>,
    pub body: Vec<Line>,
}

impl Kernel {
    /// Bytes of the kernel's static `.shared` arrays (the dynamic one is sized at launch).
    pub fn static_shared_bytes(&self) -> u64 {
        self.arrays.iter().filter(|a| a.space == StateSpace::Shared).map(|a| a.bytes).sum()
    }

    /// The source position in effect at body entry `index`: the last `Line::Loc` before it.
    pub fn source_at(&self, index: usize) -> Option<SourceLoc> {
        self.body.get(..=index)?.iter().rev().find_map(|line| match line {
            Line::Loc(loc) => Some(*loc),
            _ => None,
        })
    }

    /// How many registers of each class the body names (one past the highest index).
    pub fn reg_counts(&self) -> Vec<(RegClass, u32)> {
        let mut counts = [0u32; RegClass::ALL.len()];
        let mut note = |r: &Reg| {
            if let Some(pos) = RegClass::ALL.iter().position(|c| *c == r.class) {
                counts[pos] = counts[pos].max(r.index + 1);
            }
        };
        for line in &self.body {
            if let Line::Inst(inst) = line {
                inst.regs().iter().for_each(&mut note);
            }
        }
        RegClass::ALL.into_iter().zip(counts).filter(|(_, n)| *n > 0).collect()
    }

    /// Whether any instruction needs `feature`.
    pub fn uses(&self, feature: Feature) -> bool {
        self.body.iter().any(|line| match (line, feature) {
            (Line::Inst(inst), Feature::CpAsync) => inst.op.uses_cp_async(),
            (Line::Inst(inst), Feature::WarpMatrix) => inst.op.uses_warp_matrix(),
            (Line::Inst(inst), Feature::Bf16ToF32) => {
                matches!(inst.op, Op::Cvt { dst_ty: Ty::F32, src_ty: Ty::Bf16, .. })
            }
            (Line::Inst(inst), Feature::Tma) => matches!(inst.op, Op::Tma(_)),
            (Line::Inst(inst), Feature::Tensormap) => {
                matches!(inst.op, Op::Tma(TmaOp::TensormapReplace { .. } | TmaOp::TensormapCopy { .. }))
            }
            (Line::Inst(inst), Feature::BulkTensorCta) => {
                matches!(inst.op, Op::Tma(TmaOp::LoadTensor { cluster: false, .. }))
            }
            (Line::Inst(inst), Feature::Wgmma) => inst.op.uses_wgmma(),
            _ => false,
        })
    }
}

/// A PTX module: one target, several kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub arch: Arch,
    pub kernels: Vec<Kernel>,
}

/// A feature the module uses that its architecture lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{feature:?} needs {} or newer, but the module targets {arch}", feature.min_arch())]
pub struct ArchTooOld {
    pub feature: Feature,
    pub arch: Arch,
}

impl Module {
    /// The features any kernel uses.
    pub fn features(&self) -> Vec<Feature> {
        Feature::ALL.into_iter().filter(|f| self.kernels.iter().any(|k| k.uses(*f))).collect()
    }

    /// The PTX version the module needs: its architecture's and every used feature's minimum.
    pub fn version(&self) -> Result<PtxVersion, ArchTooOld> {
        let mut version = self.arch.min_version();
        for feature in self.features() {
            if feature.min_arch() > self.arch {
                return Err(ArchTooOld { feature, arch: self.arch });
            }
            version = version.max(feature.min_version());
        }
        Ok(version)
    }
}

impl Inst {
    /// Every register the instruction names, guard included.
    pub fn regs(&self) -> Vec<Reg> {
        let mut regs: Vec<Reg> = self.guard.iter().map(|g| g.pred).collect();
        let mut operand = |o: &Operand| {
            if let Operand::Reg(r) = o {
                regs.push(*r);
            }
        };
        let addr_reg = |a: &Address| match a.base {
            AddrBase::Reg(r) => Some(r),
            AddrBase::Symbol(_) => None,
        };
        let mut extra = Vec::new();
        match &self.op {
            Op::Mov { dst, src, .. } | Op::Not { dst, a: src, .. } | Op::Cvt { dst, src, .. } => {
                extra.push(*dst);
                operand(src);
            }
            Op::Int { dst, a, b, .. } | Op::Float { dst, a, b, .. } | Op::Setp { dst, a, b, .. } => {
                extra.push(*dst);
                operand(a);
                operand(b);
            }
            Op::MulWide { dst, a, b, .. } => {
                extra.push(*dst);
                operand(a);
                operand(b);
            }
            Op::Mad { dst, a, b, c, .. }
            | Op::Fma { dst, a, b, c, .. }
            | Op::MadWide { dst, a, b, c, .. }
            | Op::Bfe { dst, a, pos: b, len: c, .. } => {
                extra.push(*dst);
                [a, b, c].into_iter().for_each(&mut operand);
            }
            Op::Selp { dst, a, b, pred, .. } => {
                extra.extend([*dst, *pred]);
                operand(a);
                operand(b);
            }
            Op::CvtaToGlobal { dst, src } => extra.extend([*dst, *src]),
            Op::Neg { dst, a, .. } => {
                extra.push(*dst);
                operand(a);
            }
            Op::Pack { dst, parts, .. } => {
                extra.push(*dst);
                parts.iter().for_each(&mut operand);
            }
            Op::Unpack { dst, src, .. } => {
                extra.extend(dst.iter().copied());
                operand(src);
            }
            Op::Ldmatrix { dst, addr, .. } => {
                extra.extend(dst.iter().copied());
                extra.extend(addr_reg(addr));
            }
            Op::Mma { d, a, b, c, .. } => {
                extra.extend(d.iter().chain(a).chain(b).chain(c).copied());
            }
            Op::Ld { dst, addr, .. } => {
                extra.extend(dst.iter().copied());
                extra.extend(addr_reg(addr));
            }
            Op::St { addr, src, .. } => {
                src.iter().for_each(&mut operand);
                extra.extend(addr_reg(addr));
            }
            Op::CpAsync(cp) => {
                cp.src_size.iter().for_each(&mut operand);
                extra.extend(addr_reg(&cp.dst));
                extra.extend(addr_reg(&cp.src));
            }
            Op::WgmmaMmaAsync(mma) => extra.extend(mma.regs()),
            Op::WgmmaFence | Op::WgmmaCommitGroup | Op::WgmmaWaitGroup(_) | Op::FenceProxyAsync(_) => {}
            Op::Bra { .. }
            | Op::CpAsyncCommitGroup
            | Op::CpAsyncWaitGroup(_)
            | Op::CpAsyncWaitAll
            | Op::BarSync(_)
            | Op::Ret => {}
            // --- Hopper TMA ---
            Op::Tma(op) => op.regs(&mut extra),

            // Compilers' sm_80 instructions.
            Op::FloatMinMax { dst, a, b, .. } | Op::DivApprox { dst, a, b, .. } | Op::CvtPack { dst, a, b, .. } => {
                extra.push(*dst);
                operand(a);
                operand(b);
            }
            Op::Approx { dst, a, .. } => {
                extra.push(*dst);
                operand(a);
            }
            Op::Shfl { dst, pred, a, b, c, mask, .. } => {
                extra.push(*dst);
                extra.extend(*pred);
                [a, b, c, mask].into_iter().for_each(&mut operand);
            }
        }
        regs.extend(extra);
        regs
    }
}
