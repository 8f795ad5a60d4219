//! Hopper's asynchronous tensor-memory instructions as the typed module holds them: warp
//! election and warp barriers, `mbarrier` operations on a shared-memory barrier object, the
//! bulk tensor copies of the Tensor Memory Accelerator (`cp.async.bulk.tensor`, global to
//! shared completing on an mbarrier, shared to global in a bulk async-group), the bulk group
//! instructions, and the tensor-map instructions (`tensormap.replace`, `tensormap.cp_fenceproxy`,
//! `fence.proxy.tensormap`). Each `Display` is the PTX spelling, guard and `;` excepted.
//!
//! Invariants: a bulk tensor copy has between 1 and 5 coordinates (its `.Nd`); a tensor-map
//! field that takes an ordinal (a dimension) always carries one and no other field does.

use std::fmt;

use super::types::{AddrBase, Address, Operand, Reg};

/// A field of a tensor map that `tensormap.replace.tile` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensormapField {
    GlobalAddress,
    Rank,
    BoxDim,
    GlobalDim,
    GlobalStride,
    ElementStride,
    Elemtype,
    InterleaveLayout,
    SwizzleMode,
    SwizzleAtomicity,
    FillMode,
}

impl TensormapField {
    pub const ALL: [TensormapField; 11] = [
        TensormapField::GlobalAddress,
        TensormapField::Rank,
        TensormapField::BoxDim,
        TensormapField::GlobalDim,
        TensormapField::GlobalStride,
        TensormapField::ElementStride,
        TensormapField::Elemtype,
        TensormapField::InterleaveLayout,
        TensormapField::SwizzleMode,
        TensormapField::SwizzleAtomicity,
        TensormapField::FillMode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TensormapField::GlobalAddress => "global_address",
            TensormapField::Rank => "rank",
            TensormapField::BoxDim => "box_dim",
            TensormapField::GlobalDim => "global_dim",
            TensormapField::GlobalStride => "global_stride",
            TensormapField::ElementStride => "element_stride",
            TensormapField::Elemtype => "elemtype",
            TensormapField::InterleaveLayout => "interleave_layout",
            TensormapField::SwizzleMode => "swizzle_mode",
            TensormapField::SwizzleAtomicity => "swizzle_atomicity",
            TensormapField::FillMode => "fill_mode",
        }
    }

    /// Whether the field is per dimension (`tensormap.replace` then takes an ordinal).
    pub fn has_ordinal(self) -> bool {
        matches!(
            self,
            TensormapField::BoxDim
                | TensormapField::GlobalDim
                | TensormapField::GlobalStride
                | TensormapField::ElementStride
        )
    }

    /// The width of the new value in bits: 64 for the address and the strides, else 32.
    pub fn value_bits(self) -> u32 {
        match self {
            TensormapField::GlobalAddress | TensormapField::GlobalStride => 64,
            _ => 32,
        }
    }

    pub fn from_name(name: &str) -> Option<TensormapField> {
        TensormapField::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Where a tensor map that `tensormap.replace` edits lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensormapSpace {
    Global,
    SharedCta,
}

impl fmt::Display for TensormapSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TensormapSpace::Global => ".global",
            TensormapSpace::SharedCta => ".shared::cta",
        })
    }
}

/// What an mbarrier wait waits for: the phase of a state token an arrive returned, or the
/// completion of the phase of a parity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitOn {
    State,
    Parity,
}

/// `try_wait` may suspend the thread for a while; `test_wait` never does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    Try,
    Test,
}

/// An `mbarrier` instruction on the barrier object at `addr` (`.shared::cta.b64`).
#[derive(Clone, Debug, PartialEq)]
pub enum MbarrierOp {
    /// `mbarrier.init [addr], count`: phase 0, `count` arrivals expected, no transaction bytes.
    Init { addr: Address, count: Operand },
    /// `mbarrier.inval [addr]`: the object is no longer a barrier.
    Inval { addr: Address },
    /// `mbarrier.arrive[.expect_tx] state, [addr]{, count | tx}`: `state` (or the sink `_`)
    /// receives a token of the phase arrived at. With `expect_tx`, `tx` bytes are expected
    /// first, and the arrival count is 1.
    Arrive { state: Option<Reg>, addr: Address, count: Option<Operand>, expect_tx: Option<Operand> },
    /// `mbarrier.expect_tx [addr], tx` (`complete: false`) or `mbarrier.complete_tx [addr], tx`.
    Tx { complete: bool, addr: Address, tx: Operand },
    /// `mbarrier.try_wait[.parity]` / `mbarrier.test_wait[.parity]`: `dst` is true once the
    /// phase is complete.
    Wait { kind: WaitKind, on: WaitOn, dst: Reg, addr: Address, phase: Operand },
}

impl MbarrierOp {
    pub fn regs(&self, out: &mut Vec<Reg>) {
        let mut operand = |o: &Operand| {
            if let Operand::Reg(r) = o {
                out.push(*r);
            }
        };
        let mut operands: Vec<&Operand> = Vec::new();
        let addr = match self {
            MbarrierOp::Init { addr, count } => {
                operands.push(count);
                addr
            }
            MbarrierOp::Inval { addr } => addr,
            MbarrierOp::Arrive { addr, count, expect_tx, .. } => {
                operands.extend(count.iter().chain(expect_tx));
                addr
            }
            MbarrierOp::Tx { addr, tx, .. } => {
                operands.push(tx);
                addr
            }
            MbarrierOp::Wait { addr, phase, .. } => {
                operands.push(phase);
                addr
            }
        };
        operands.into_iter().for_each(&mut operand);
        match self {
            MbarrierOp::Arrive { state: Some(r), .. } | MbarrierOp::Wait { dst: r, .. } => out.push(*r),
            _ => {}
        }
        push_addr(out, addr);
    }
}

fn push_addr(out: &mut Vec<Reg>, addr: &Address) {
    if let AddrBase::Reg(r) = addr.base {
        out.push(r);
    }
}

impl fmt::Display for MbarrierOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SPACE: &str = ".shared::cta.b64";
        match self {
            MbarrierOp::Init { addr, count } => write!(f, "mbarrier.init{SPACE} {addr}, {count}"),
            MbarrierOp::Inval { addr } => write!(f, "mbarrier.inval{SPACE} {addr}"),
            MbarrierOp::Arrive { state, addr, count, expect_tx } => {
                let state = state.map_or("_".to_string(), |r| r.to_string());
                match (expect_tx, count) {
                    (Some(tx), _) => write!(f, "mbarrier.arrive.expect_tx{SPACE} {state}, {addr}, {tx}"),
                    (None, Some(count)) => write!(f, "mbarrier.arrive{SPACE} {state}, {addr}, {count}"),
                    (None, None) => write!(f, "mbarrier.arrive{SPACE} {state}, {addr}"),
                }
            }
            MbarrierOp::Tx { complete, addr, tx } => {
                let name = if *complete { "complete_tx" } else { "expect_tx" };
                write!(f, "mbarrier.{name}{SPACE} {addr}, {tx}")
            }
            MbarrierOp::Wait { kind, on, dst, addr, phase } => {
                let kind = match kind {
                    WaitKind::Try => "try_wait",
                    WaitKind::Test => "test_wait",
                };
                let parity = if *on == WaitOn::Parity { ".parity" } else { "" };
                write!(f, "mbarrier.{kind}{parity}{SPACE} {dst}, {addr}, {phase}")
            }
        }
    }
}

/// `[tmap, {c0, ...}]`: a tensor map's address and the coordinates of a box's first element.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorCoords {
    pub tmap: Address,
    pub coords: Vec<Operand>,
}

impl fmt::Display for TensorCoords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.tmap.to_string();
        let inner = inner.trim_start_matches('[').trim_end_matches(']');
        write!(f, "[{inner}, {{")?;
        for (i, c) in self.coords.iter().enumerate() {
            write!(f, "{}{c}", if i > 0 { ", " } else { "" })?;
        }
        f.write_str("}]")
    }
}

impl TensorCoords {
    fn regs(&self, out: &mut Vec<Reg>) {
        push_addr(out, &self.tmap);
        out.extend(self.coords.iter().filter_map(|c| match c {
            Operand::Reg(r) => Some(*r),
            _ => None,
        }));
    }
}

/// The Hopper instructions of this module, one variant of `Op` (`Op::Tma`).
#[derive(Clone, Debug, PartialEq)]
pub enum TmaOp {
    /// `elect.sync d|p, membermask`: one lane of the mask is elected; `d` (or `_`) receives
    /// its lane number, `p` is true in the elected lane only.
    ElectSync {
        dst: Option<Reg>,
        pred: Reg,
        mask: Operand,
    },
    /// `bar.warp.sync membermask`: the lanes of the mask meet.
    BarWarpSync {
        mask: Operand,
    },
    /// `cvta.global.u64 d, a` / `cvta.param.u64 d, a`: a global address, or a kernel
    /// parameter's (a byte array passed by value), as a generic one.
    CvtaToGeneric {
        param: bool,
        dst: Reg,
        src: Reg,
    },
    Mbarrier(MbarrierOp),
    /// `cp.async.bulk.tensor.Nd.shared::cta.global.mbarrier::complete_tx::bytes [dst],
    /// [tmap, {coords}], [mbar]` (or `.shared::cluster`, `cluster`; the block is its own
    /// cluster): a box of the tensor into shared memory, completing `bytes` transactions on
    /// the mbarrier.
    LoadTensor {
        dst: Address,
        src: TensorCoords,
        mbar: Address,
        cluster: bool,
    },
    /// `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [tmap, {coords}], [src]`: a box
    /// of shared memory into the tensor, in the thread's bulk async-group.
    StoreTensor {
        dst: TensorCoords,
        src: Address,
    },
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group[.read] n`: with `.read`, until the sources of all but `n`
    /// groups are read; without, until they completed.
    BulkWait {
        n: u32,
        read: bool,
    },
    /// `tensormap.replace.tile.FIELD.SPACE.b1024.bNN [addr], {ordinal,} value`.
    TensormapReplace {
        field: TensormapField,
        space: TensormapSpace,
        addr: Address,
        ordinal: Option<u32>,
        value: Operand,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned
    /// [dst], [src], 128`: the warp copies a tensor map from shared to global memory and
    /// releases it to the tensor-map proxy.
    TensormapCopy {
        dst: Address,
        src: Address,
    },
    /// `fence.proxy.tensormap::generic.acquire.gpu [addr], 128` (and `.release.gpu` without
    /// operands): orders the generic proxy's writes of a tensor map with its use by copies.
    FenceTensormap {
        acquire: Option<Address>,
    },
}

impl TmaOp {
    /// Every register the instruction names (the guard is `Inst`'s).
    pub fn regs(&self, out: &mut Vec<Reg>) {
        match self {
            TmaOp::ElectSync { dst, pred, mask } => {
                out.extend(dst.iter().copied());
                out.push(*pred);
                if let Operand::Reg(r) = mask {
                    out.push(*r);
                }
            }
            TmaOp::BarWarpSync { mask } => {
                if let Operand::Reg(r) = mask {
                    out.push(*r);
                }
            }
            TmaOp::CvtaToGeneric { dst, src, .. } => out.extend([*dst, *src]),
            TmaOp::Mbarrier(m) => m.regs(out),
            TmaOp::LoadTensor { dst, src, mbar, .. } => {
                push_addr(out, dst);
                src.regs(out);
                push_addr(out, mbar);
            }
            TmaOp::StoreTensor { dst, src } => {
                dst.regs(out);
                push_addr(out, src);
            }
            TmaOp::BulkCommit | TmaOp::BulkWait { .. } => {}
            TmaOp::TensormapReplace { addr, value, .. } => {
                push_addr(out, addr);
                if let Operand::Reg(r) = value {
                    out.push(*r);
                }
            }
            TmaOp::TensormapCopy { dst, src } => {
                push_addr(out, dst);
                push_addr(out, src);
            }
            TmaOp::FenceTensormap { acquire } => {
                if let Some(a) = acquire {
                    push_addr(out, a);
                }
            }
        }
    }
}

impl fmt::Display for TmaOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TmaOp::ElectSync { dst, pred, mask } => {
                let dst = dst.map_or("_".to_string(), |r| r.to_string());
                write!(f, "elect.sync {dst}|{pred}, {mask}")
            }
            TmaOp::BarWarpSync { mask } => write!(f, "bar.warp.sync {mask}"),
            TmaOp::CvtaToGeneric { param, dst, src } => {
                write!(f, "cvta.{}.u64 {dst}, {src}", if *param { "param" } else { "global" })
            }
            TmaOp::Mbarrier(m) => m.fmt(f),
            TmaOp::LoadTensor { dst, src, mbar, cluster } => write!(
                f,
                "cp.async.bulk.tensor.{}d.shared::{}.global.mbarrier::complete_tx::bytes {dst}, {src}, {mbar}",
                src.coords.len(),
                if *cluster { "cluster" } else { "cta" }
            ),
            TmaOp::StoreTensor { dst, src } => {
                write!(f, "cp.async.bulk.tensor.{}d.global.shared::cta.bulk_group {dst}, {src}", dst.coords.len())
            }
            TmaOp::BulkCommit => f.write_str("cp.async.bulk.commit_group"),
            TmaOp::BulkWait { n, read } => {
                write!(f, "cp.async.bulk.wait_group{} {n}", if *read { ".read" } else { "" })
            }
            TmaOp::TensormapReplace { field, space, addr, ordinal, value } => {
                write!(f, "tensormap.replace.tile.{}{space}.b1024.b{} {addr}, ", field.name(), field.value_bits())?;
                if let Some(ordinal) = ordinal {
                    write!(f, "{ordinal}, ")?;
                }
                write!(f, "{value}")
            }
            TmaOp::TensormapCopy { dst, src } => write!(
                f,
                "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned {dst}, {src}, 128"
            ),
            TmaOp::FenceTensormap { acquire: Some(addr) } => {
                write!(f, "fence.proxy.tensormap::generic.acquire.gpu {addr}, 128")
            }
            TmaOp::FenceTensormap { acquire: None } => f.write_str("fence.proxy.tensormap::generic.release.gpu"),
        }
    }
}
