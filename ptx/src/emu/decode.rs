//! Pre-decoding: a kernel of the typed module into a flat list of compact instructions with
//! registers resolved to slots of one `u64` array, immediates to their bits, labels to
//! instruction indices and symbols to addresses.
//!
//! Invariants: register slots are `class offset + index`, so a frame is one vector; every
//! branch target is an index into the decoded list; an immediate holds the bits of its
//! instruction's type (masked to its width), so execution never looks at `Operand` again.

use std::collections::HashMap;

use crate::module::{
    AddrBase, Address, ApproxFn, Cmp, Feature, FloatOp, IntOp, Kernel, Label, Line, MmaInput, Op, Operand, PackedHalf,
    Reg, RegClass, Rounding, ShflMode, Special, StateSpace, TmaOp, Ty, WgmmaA, WgmmaInput, WgmmaMma,
};

use super::EmuError;

/// A source operand.
#[derive(Clone, Copy, Debug)]
pub(super) enum Src {
    Reg(u32),
    Imm(u64),
    Tid(usize),
    Ctaid(usize),
}

/// An address: a register's value or an absolute address, plus a byte offset.
#[derive(Clone, Copy, Debug)]
pub(super) struct DAddr {
    pub reg: Option<u32>,
    pub offset: u64,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum DOp {
    Mov {
        dst: u32,
        src: Src,
    },
    Int {
        op: IntOp,
        ty: Ty,
        dst: u32,
        a: Src,
        b: Src,
    },
    Mad {
        ty: Ty,
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    MulWide {
        signed: bool,
        dst: u32,
        a: Src,
        b: Src,
    },
    MadWide {
        signed: bool,
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfe {
        signed: bool,
        width: u32,
        dst: u32,
        a: Src,
        pos: Src,
        len: Src,
    },
    Neg {
        ty: Ty,
        dst: u32,
        a: Src,
    },
    /// Two `half`-bit values packed, `lo` lowest.
    Pack {
        half: u32,
        dst: u32,
        lo: Src,
        hi: Src,
    },
    Unpack {
        half: u32,
        lo: u32,
        hi: u32,
        src: Src,
    },
    /// Warp-wide: resolved when every lane of the warp reached it.
    Ldmatrix {
        count: u8,
        trans: bool,
        dst: [u32; 4],
        addr: DAddr,
    },
    Mma {
        input: MmaInput,
        d: [u32; 4],
        a: [u32; 4],
        b: [u32; 2],
        c: [u32; 4],
    },
    Not {
        ty: Ty,
        dst: u32,
        a: Src,
    },
    Float {
        op: FloatOp,
        ty: Ty,
        dst: u32,
        a: Src,
        b: Src,
    },
    Fma {
        ty: Ty,
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Cvt {
        dst_ty: Ty,
        src_ty: Ty,
        rounding: Option<Rounding>,
        dst: u32,
        src: Src,
    },
    Setp {
        cmp: Cmp,
        ty: Ty,
        dst: u32,
        a: Src,
        b: Src,
    },
    Selp {
        dst: u32,
        a: Src,
        b: Src,
        pred: u32,
    },
    Bra {
        target: u32,
    },
    LdParam {
        dst: u32,
        param: u32,
    },
    Ld {
        space: StateSpace,
        ty: Ty,
        n: u8,
        dst: [u32; 4],
        addr: DAddr,
    },
    St {
        space: StateSpace,
        ty: Ty,
        n: u8,
        src: [Src; 4],
        addr: DAddr,
    },
    CpAsync {
        bytes: u32,
        dst: DAddr,
        src: DAddr,
        src_size: Option<Src>,
    },
    Commit,
    Wait(u32),
    WaitAll,
    Bar,
    Ret,
    // --- Hopper TMA: an index into `Decoded::tma` (emu/tma.rs) ---
    Tma(u32),

    // Compilers' sm_80 instructions.
    FloatMinMax {
        max: bool,
        ftz: bool,
        nan: bool,
        ty: Ty,
        dst: u32,
        a: Src,
        b: Src,
    },
    Approx {
        func: ApproxFn,
        ftz: bool,
        dst: u32,
        a: Src,
    },
    /// `div.full` and `div.approx` alike: the model gives both the IEEE quotient.
    DivApprox {
        ftz: bool,
        dst: u32,
        a: Src,
        b: Src,
    },
    CvtPack {
        to: PackedHalf,
        rounding: Rounding,
        relu: bool,
        dst: u32,
        a: Src,
        b: Src,
    },
    /// Warp-wide: resolved when every lane its membermask names reached it.
    Shfl {
        mode: ShflMode,
        dst: u32,
        pred: Option<u32>,
        a: Src,
        b: Src,
        c: Src,
        mask: Src,
    },
    // Hopper's warpgroup MMA queue and the async-proxy fence (emu/wgmma.rs).
    WgmmaFence,
    /// Warpgroup-wide: the index of its operands in `Decoded::wgmmas`.
    WgmmaMma(u32),
    WgmmaCommit,
    WgmmaWait(u32),
    /// `fence.proxy.async`; `shared`: it orders shared memory.
    FenceProxyAsync {
        shared: bool,
    },
}

/// Where a decoded `wgmma.mma_async` takes A from.
#[derive(Clone, Copy, Debug)]
pub(super) enum DWgmmaA {
    Desc(u32),
    Regs([u32; 4]),
}

/// The operands of a decoded `wgmma.mma_async` (register slots).
#[derive(Clone, Debug)]
pub(super) struct DWgmma {
    pub n: u32,
    pub input: WgmmaInput,
    pub d: Vec<u32>,
    pub a: DWgmmaA,
    pub b: u32,
    pub scale_d: Src,
    pub negate_a: bool,
    pub negate_b: bool,
    pub trans_a: bool,
    pub trans_b: bool,
}

impl DWgmma {
    /// Every register slot the instruction reads or writes, D first.
    pub fn slots(&self) -> Vec<u32> {
        let mut slots = self.d.clone();
        match self.a {
            DWgmmaA::Desc(s) => slots.push(s),
            DWgmmaA::Regs(a) => slots.extend(a),
        }
        slots.push(self.b);
        if let Src::Reg(s) = self.scale_d {
            slots.push(s);
        }
        slots
    }

    /// The slots an in-flight instance holds: D and the A registers.
    pub fn held_slots(&self) -> Vec<u32> {
        let mut slots = self.d.clone();
        if let DWgmmaA::Regs(a) = self.a {
            slots.extend(a);
        }
        slots
    }
}

/// A decoded instruction with its guard and where it came from.
#[derive(Clone, Copy, Debug)]
pub(super) struct DInst {
    pub guard: Option<(u32, bool)>,
    pub op: DOp,
    /// The index of the body line it was decoded from.
    pub line_index: u32,
}

/// A decoded kernel.
pub(super) struct Decoded {
    pub insts: Vec<DInst>,
    pub n_slots: usize,
    /// The Hopper TMA instructions `DOp::Tma` indexes.
    pub tma: Vec<super::tma::DTma>,
    /// The operands of every `wgmma.mma_async`, by `DOp::WgmmaMma` index.
    pub wgmmas: Vec<DWgmma>,
    /// Per instruction, the register slots it names with their registers: only for kernels
    /// that use `wgmma` (empty otherwise), to find accesses of registers an in-flight wgmma
    /// holds.
    pub reg_uses: Vec<Box<[(u32, Reg)]>>,
}

/// Where the arrays of the shared and local state spaces start.
pub(super) struct Layout {
    /// Symbol name -> absolute address (arrays) or parameter index (parameters).
    pub arrays: HashMap<String, u64>,
    pub params: HashMap<String, u32>,
}

fn slot_base(kernel: &Kernel) -> HashMap<RegClass, u32> {
    let mut base = HashMap::new();
    let mut next = 0u32;
    for (class, count) in kernel.reg_counts() {
        base.insert(class, next);
        next += count;
    }
    base
}

fn mask(bits: u64, width: u32) -> u64 {
    if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    }
}

pub(super) struct Decoder<'a> {
    slots: HashMap<RegClass, u32>,
    layout: &'a Layout,
    labels: HashMap<Label, u32>,
    grid: [u32; 3],
}

impl Decoder<'_> {
    pub(super) fn slot(&self, reg: Reg) -> u32 {
        self.slots.get(&reg.class).copied().unwrap_or(0) + reg.index
    }

    pub(super) fn src(&self, operand: &Operand, ty: Ty) -> Result<Src, EmuError> {
        Ok(match operand {
            Operand::Reg(r) => Src::Reg(self.slot(*r)),
            Operand::Imm(v) => Src::Imm(mask(*v as u64, ty.bits().max(1))),
            Operand::F32(bits) => Src::Imm(u64::from(*bits)),
            Operand::F64(bits) => Src::Imm(*bits),
            Operand::Special(Special::Tid(d)) => Src::Tid(d.position()),
            Operand::Special(Special::Ctaid(d)) => Src::Ctaid(d.position()),
            // The grid is fixed for the run: its extent is a constant.
            Operand::Special(Special::Nctaid(d)) => Src::Imm(u64::from(self.grid[d.position()])),
            Operand::Symbol(name) => Src::Imm(self.symbol(name)?),
        })
    }

    fn symbol(&self, name: &str) -> Result<u64, EmuError> {
        self.layout.arrays.get(name).copied().ok_or_else(|| EmuError::UnknownSymbol(name.to_string()))
    }

    pub(super) fn addr(&self, addr: &Address) -> Result<DAddr, EmuError> {
        Ok(match &addr.base {
            AddrBase::Reg(r) => DAddr { reg: Some(self.slot(*r)), offset: addr.offset as u64 },
            AddrBase::Symbol(name) => DAddr { reg: None, offset: self.symbol(name)?.wrapping_add(addr.offset as u64) },
        })
    }

    fn target(&self, label: Label) -> Result<u32, EmuError> {
        self.labels.get(&label).copied().ok_or(EmuError::UnknownLabel(label))
    }

    fn op(&self, op: &Op) -> Result<DOp, EmuError> {
        Ok(match op {
            Op::Mov { ty, dst, src } => DOp::Mov { dst: self.slot(*dst), src: self.src(src, *ty)? },
            Op::Int { op, ty, dst, a, b } => {
                // Shift amounts are `.u32` whatever the value's type.
                let b_ty = if matches!(op, IntOp::Shl | IntOp::Shr) { Ty::U32 } else { *ty };
                DOp::Int { op: *op, ty: *ty, dst: self.slot(*dst), a: self.src(a, *ty)?, b: self.src(b, b_ty)? }
            }
            Op::Mad { ty, dst, a, b, c } => DOp::Mad {
                ty: *ty,
                dst: self.slot(*dst),
                a: self.src(a, *ty)?,
                b: self.src(b, *ty)?,
                c: self.src(c, *ty)?,
            },
            Op::Not { ty, dst, a } => DOp::Not { ty: *ty, dst: self.slot(*dst), a: self.src(a, *ty)? },
            Op::MulWide { ty, dst, a, b } => DOp::MulWide {
                signed: ty.is_signed(),
                dst: self.slot(*dst),
                a: self.src(a, *ty)?,
                b: self.src(b, *ty)?,
            },
            Op::MadWide { ty, dst, a, b, c } => DOp::MadWide {
                signed: ty.is_signed(),
                dst: self.slot(*dst),
                a: self.src(a, *ty)?,
                b: self.src(b, *ty)?,
                c: self.src(c, Ty::B64)?,
            },
            Op::Bfe { ty, dst, a, pos, len } => DOp::Bfe {
                signed: ty.is_signed(),
                width: ty.bits(),
                dst: self.slot(*dst),
                a: self.src(a, *ty)?,
                pos: self.src(pos, Ty::U32)?,
                len: self.src(len, Ty::U32)?,
            },
            Op::Neg { ty, dst, a } => DOp::Neg { ty: *ty, dst: self.slot(*dst), a: self.src(a, *ty)? },
            Op::Pack { ty, dst, parts: [lo, hi] } => {
                let half = ty.bits() / 2;
                let part_ty = if half == 16 { Ty::B16 } else { Ty::B32 };
                DOp::Pack { half, dst: self.slot(*dst), lo: self.src(lo, part_ty)?, hi: self.src(hi, part_ty)? }
            }
            Op::Unpack { ty, dst: [lo, hi], src } => {
                DOp::Unpack { half: ty.bits() / 2, lo: self.slot(*lo), hi: self.slot(*hi), src: self.src(src, *ty)? }
            }
            Op::Ldmatrix { trans, dst, addr } => {
                let mut slots = [0u32; 4];
                for (slot, reg) in slots.iter_mut().zip(dst) {
                    *slot = self.slot(*reg);
                }
                DOp::Ldmatrix { count: dst.len().min(4) as u8, trans: *trans, dst: slots, addr: self.addr(addr)? }
            }
            Op::Mma { input, d, a, b, c } => DOp::Mma {
                input: *input,
                d: d.map(|r| self.slot(r)),
                a: a.map(|r| self.slot(r)),
                b: b.map(|r| self.slot(r)),
                c: c.map(|r| self.slot(r)),
            },
            Op::Float { op, ty, dst, a, b } => {
                DOp::Float { op: *op, ty: *ty, dst: self.slot(*dst), a: self.src(a, *ty)?, b: self.src(b, *ty)? }
            }
            Op::Fma { ty, dst, a, b, c } => DOp::Fma {
                ty: *ty,
                dst: self.slot(*dst),
                a: self.src(a, *ty)?,
                b: self.src(b, *ty)?,
                c: self.src(c, *ty)?,
            },
            Op::Cvt { dst_ty, src_ty, rounding, dst, src } => DOp::Cvt {
                dst_ty: *dst_ty,
                src_ty: *src_ty,
                rounding: *rounding,
                dst: self.slot(*dst),
                src: self.src(src, *src_ty)?,
            },
            Op::CvtaToGlobal { dst, src } => DOp::Mov { dst: self.slot(*dst), src: Src::Reg(self.slot(*src)) },
            Op::Setp { cmp, ty, dst, a, b } => {
                DOp::Setp { cmp: *cmp, ty: *ty, dst: self.slot(*dst), a: self.src(a, *ty)?, b: self.src(b, *ty)? }
            }
            Op::Selp { ty, dst, a, b, pred } => {
                DOp::Selp { dst: self.slot(*dst), a: self.src(a, *ty)?, b: self.src(b, *ty)?, pred: self.slot(*pred) }
            }
            Op::Bra { target } => DOp::Bra { target: self.target(*target)? },
            Op::Ld { space: StateSpace::Param, dst, addr, .. } => {
                let AddrBase::Symbol(name) = &addr.base else {
                    return Err(EmuError::Unsupported("a parameter load through a register".into()));
                };
                let param =
                    self.layout.params.get(name).copied().ok_or_else(|| EmuError::UnknownSymbol(name.clone()))?;
                let dst = dst.first().map(|r| self.slot(*r)).unwrap_or(0);
                DOp::LdParam { dst, param }
            }
            Op::Ld { space, ty, dst, addr, .. } => {
                let mut slots = [0u32; 4];
                for (slot, reg) in slots.iter_mut().zip(dst) {
                    *slot = self.slot(*reg);
                }
                DOp::Ld { space: *space, ty: *ty, n: dst.len().min(4) as u8, dst: slots, addr: self.addr(addr)? }
            }
            Op::St { space, ty, addr, src, .. } => {
                let mut srcs = [Src::Imm(0); 4];
                for (slot, operand) in srcs.iter_mut().zip(src) {
                    *slot = self.src(operand, *ty)?;
                }
                DOp::St { space: *space, ty: *ty, n: src.len().min(4) as u8, src: srcs, addr: self.addr(addr)? }
            }
            Op::CpAsync(cp) => DOp::CpAsync {
                bytes: cp.size().bytes(),
                dst: self.addr(&cp.dst)?,
                src: self.addr(&cp.src)?,
                src_size: cp.src_size.as_ref().map(|s| self.src(s, Ty::U32)).transpose()?,
            },
            Op::CpAsyncCommitGroup => DOp::Commit,
            Op::CpAsyncWaitGroup(n) => DOp::Wait(*n),
            Op::CpAsyncWaitAll => DOp::WaitAll,
            Op::BarSync(_) => DOp::Bar,
            Op::Ret => DOp::Ret,
            // --- Hopper TMA: `decode` tables them; `cvta.global`/`cvta.param` are moves (generic
            // addresses are the emulator's addresses) ---
            Op::Tma(TmaOp::CvtaToGeneric { dst, src, .. }) => {
                DOp::Mov { dst: self.slot(*dst), src: Src::Reg(self.slot(*src)) }
            }
            Op::Tma(_) => return Err(EmuError::Unsupported("a TMA instruction outside its table".into())),

            // Compilers' sm_80 instructions.
            Op::FloatMinMax { max, ftz, nan, ty, dst, a, b } => DOp::FloatMinMax {
                max: *max,
                ftz: *ftz,
                nan: *nan,
                ty: *ty,
                dst: self.slot(*dst),
                a: self.src(a, *ty)?,
                b: self.src(b, *ty)?,
            },
            Op::Approx { func, ftz, dst, a } => {
                DOp::Approx { func: *func, ftz: *ftz, dst: self.slot(*dst), a: self.src(a, Ty::F32)? }
            }
            Op::DivApprox { ftz, dst, a, b, .. } => {
                DOp::DivApprox { ftz: *ftz, dst: self.slot(*dst), a: self.src(a, Ty::F32)?, b: self.src(b, Ty::F32)? }
            }
            Op::CvtPack { to, rounding, relu, dst, a, b } => DOp::CvtPack {
                to: *to,
                rounding: *rounding,
                relu: *relu,
                dst: self.slot(*dst),
                a: self.src(a, Ty::F32)?,
                b: self.src(b, Ty::F32)?,
            },
            Op::Shfl { mode, dst, pred, a, b, c, mask } => DOp::Shfl {
                mode: *mode,
                dst: self.slot(*dst),
                pred: pred.map(|p| self.slot(p)),
                a: self.src(a, Ty::B32)?,
                b: self.src(b, Ty::B32)?,
                c: self.src(c, Ty::B32)?,
                mask: self.src(mask, Ty::B32)?,
            },
            Op::WgmmaFence => DOp::WgmmaFence,
            // Decoded by `decode`, which keeps its operands in `Decoded::wgmmas`.
            Op::WgmmaMmaAsync(_) => return Err(EmuError::Unsupported("a wgmma outside the decoder's list".into())),
            Op::WgmmaCommitGroup => DOp::WgmmaCommit,
            Op::WgmmaWaitGroup(n) => DOp::WgmmaWait(*n),
            Op::FenceProxyAsync(space) => DOp::FenceProxyAsync { shared: space.covers_shared() },
        })
    }

    fn wgmma(&self, mma: &WgmmaMma) -> Result<DWgmma, EmuError> {
        // A module built in code may break what the parser checks; the emulator's indexing
        // relies on it.
        mma.check().map_err(|e| EmuError::Unsupported(format!("`{mma}`: {e}")))?;
        Ok(DWgmma {
            n: mma.n,
            input: mma.input,
            d: mma.d.iter().map(|r| self.slot(*r)).collect(),
            a: match &mma.a {
                WgmmaA::Desc(r) => DWgmmaA::Desc(self.slot(*r)),
                WgmmaA::Regs(regs) => DWgmmaA::Regs(regs.map(|r| self.slot(r))),
            },
            b: self.slot(mma.b),
            scale_d: self.src(&mma.scale_d, Ty::Pred)?,
            negate_a: mma.negate_a,
            negate_b: mma.negate_b,
            trans_a: mma.trans_a,
            trans_b: mma.trans_b,
        })
    }
}

/// Decodes a kernel's body against the addresses of its arrays and parameters.
pub(super) fn decode(kernel: &Kernel, layout: &Layout) -> Result<Decoded, EmuError> {
    let slots = slot_base(kernel);
    let n_slots = kernel.reg_counts().iter().map(|(_, n)| *n as usize).sum();
    let mut labels = HashMap::new();
    let mut next = 0u32;
    for line in &kernel.body {
        match line {
            Line::Label(label) => {
                labels.insert(*label, next);
            }
            Line::Inst(_) => next += 1,
            Line::Comment(_) | Line::Loc(_) => {}
        }
    }
    let decoder = Decoder { slots, layout, labels, grid: kernel.launch.grid };
    let mut insts = Vec::new();
    let mut tma = Vec::new();
    let mut wgmmas = Vec::new();
    let mut reg_uses = Vec::new();
    let wgmma = kernel.uses(Feature::Wgmma);
    for (index, line) in kernel.body.iter().enumerate() {
        if let Line::Inst(inst) = line {
            let guard = inst.guard.map(|g| (decoder.slot(g.pred), g.negated));
            let line_index = u32::try_from(index).unwrap_or(u32::MAX);
            let op = match &inst.op {
                Op::Tma(op) if !matches!(op, TmaOp::CvtaToGeneric { .. }) => {
                    tma.push(decoder.tma(op)?);
                    DOp::Tma(u32::try_from(tma.len() - 1).unwrap_or(u32::MAX))
                }
                Op::WgmmaMmaAsync(mma) => {
                    wgmmas.push(decoder.wgmma(mma)?);
                    DOp::WgmmaMma(u32::try_from(wgmmas.len() - 1).unwrap_or(u32::MAX))
                }
                other => decoder.op(other)?,
            };
            insts.push(DInst { guard, op, line_index });
            if wgmma {
                reg_uses.push(inst.regs().into_iter().map(|r| (decoder.slot(r), r)).collect());
            }
        }
    }
    Ok(Decoded { insts, n_slots, wgmmas, reg_uses, tma })
}
