//! Hopper's warpgroup matrix instructions and the proxy fence, as typed operands of `Op`:
//! `wgmma.mma_async` (`WgmmaMma`), the element types it multiplies (`WgmmaInput`), where its
//! A operand comes from (`WgmmaA`), and the state spaces a `fence.proxy.async` orders
//! (`ProxySpace`). Each prints in PTX syntax, so what the parser reads prints back the same.
//!
//! Invariants: a `WgmmaMma` is always the `m64nNkK` shape with f32 accumulators, `N` a
//! multiple of 8 from 8 to 256 and `K` the one its input type allows (16 for f16 and bf16, 8
//! for tf32), `d` holding `N / 2` registers and a register A four; the transpose flags are
//! only ever set for f16 and bf16 (the ISA has none for tf32), which `WgmmaMma::check` enforces.

use std::fmt;

use super::types::{Operand, Reg};

/// The element type of A and B of a `wgmma.mma_async` (D is always f32 here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaInput {
    F16,
    Bf16,
    Tf32,
}

impl WgmmaInput {
    /// The K of one instruction.
    pub fn k(self) -> u32 {
        match self {
            WgmmaInput::F16 | WgmmaInput::Bf16 => 16,
            WgmmaInput::Tf32 => 8,
        }
    }

    /// Bytes of one element in shared memory.
    pub fn bytes(self) -> u32 {
        match self {
            WgmmaInput::F16 | WgmmaInput::Bf16 => 2,
            WgmmaInput::Tf32 => 4,
        }
    }

    fn name(self) -> &'static str {
        match self {
            WgmmaInput::F16 => "f16",
            WgmmaInput::Bf16 => "bf16",
            WgmmaInput::Tf32 => "tf32",
        }
    }

    pub fn of_name(name: &str) -> Option<WgmmaInput> {
        match name {
            "f16" => Some(WgmmaInput::F16),
            "bf16" => Some(WgmmaInput::Bf16),
            "tf32" => Some(WgmmaInput::Tf32),
            _ => None,
        }
    }
}

/// Where the A operand of a `wgmma.mma_async` comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WgmmaA {
    /// A shared-memory matrix descriptor in a 64-bit register.
    Desc(Reg),
    /// Four registers of fragments per thread.
    Regs([Reg; 4]),
}

/// `wgmma.mma_async.sync.aligned.m64nNkK.f32.T.T d, a, b-desc, scale-d, imm-scale-a,
/// imm-scale-b[, imm-trans-a][, imm-trans-b]`: the warpgroup computes D = A * B + D (or
/// D = A * B when `scale_d` is false) for a 64xK A, a KxN B and a 64xN f32 D spread over its
/// 128 threads, asynchronously.
#[derive(Clone, Debug, PartialEq)]
pub struct WgmmaMma {
    pub n: u32,
    pub input: WgmmaInput,
    pub d: Vec<Reg>,
    pub a: WgmmaA,
    pub b: Reg,
    /// A predicate register or the immediate 0 or 1: whether D is accumulated into.
    pub scale_d: Operand,
    /// `imm-scale-a` / `imm-scale-b` of -1: the operand is negated.
    pub negate_a: bool,
    pub negate_b: bool,
    /// `imm-trans-a` (only with an A descriptor) / `imm-trans-b` of 1: the operand is stored
    /// M- or N-major instead of K-major.
    pub trans_a: bool,
    pub trans_b: bool,
}

/// Why a `wgmma.mma_async` is not one of the forms the module holds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WgmmaFormError {
    #[error("wgmma N is a multiple of 8 from 8 to 256, not {0}")]
    BadN(u32),
    #[error("wgmma .m64n{n} with f32 accumulators has {} D registers, not {found}", n / 2)]
    DCount { n: u32, found: usize },
    #[error("wgmma with {0} inputs takes no transpose immediates")]
    TransposeTf32(&'static str),
}

impl WgmmaMma {
    /// Checks the invariants of the type (see the module doc).
    pub fn check(&self) -> Result<(), WgmmaFormError> {
        if self.n == 0 || self.n > 256 || !self.n.is_multiple_of(8) {
            return Err(WgmmaFormError::BadN(self.n));
        }
        if self.d.len() != (self.n / 2) as usize {
            return Err(WgmmaFormError::DCount { n: self.n, found: self.d.len() });
        }
        if self.input == WgmmaInput::Tf32 && (self.trans_a || self.trans_b) {
            return Err(WgmmaFormError::TransposeTf32(self.input.name()));
        }
        Ok(())
    }

    /// The A registers, when A comes from registers.
    pub fn a_regs(&self) -> &[Reg] {
        match &self.a {
            WgmmaA::Regs(regs) => regs,
            WgmmaA::Desc(_) => &[],
        }
    }

    /// Every register the instruction names.
    pub fn regs(&self) -> Vec<Reg> {
        let mut regs = self.d.clone();
        match &self.a {
            WgmmaA::Desc(r) => regs.push(*r),
            WgmmaA::Regs(a) => regs.extend(a),
        }
        regs.push(self.b);
        if let Operand::Reg(r) = self.scale_d {
            regs.push(r);
        }
        regs
    }
}

impl fmt::Display for WgmmaMma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ty = self.input.name();
        write!(f, "wgmma.mma_async.sync.aligned.m64n{}k{}.f32.{ty}.{ty} {{", self.n, self.input.k())?;
        for (i, r) in self.d.iter().enumerate() {
            write!(f, "{}{r}", if i > 0 { ", " } else { "" })?;
        }
        f.write_str("}, ")?;
        match &self.a {
            WgmmaA::Desc(r) => write!(f, "{r}")?,
            WgmmaA::Regs([a0, a1, a2, a3]) => write!(f, "{{{a0}, {a1}, {a2}, {a3}}}")?,
        }
        let scale = |negate: bool| if negate { -1 } else { 1 };
        write!(f, ", {}, {}, {}, {}", self.b, self.scale_d, scale(self.negate_a), scale(self.negate_b))?;
        if self.input != WgmmaInput::Tf32 {
            if let WgmmaA::Desc(_) = self.a {
                write!(f, ", {}", u8::from(self.trans_a))?;
            }
            write!(f, ", {}", u8::from(self.trans_b))?;
        }
        Ok(())
    }
}

/// The state spaces a `fence.proxy.async` orders between the generic and the async proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProxySpace {
    /// No state space named: all of them.
    All,
    Global,
    SharedCta,
    SharedCluster,
}

impl ProxySpace {
    pub fn of_name(name: &str) -> Option<ProxySpace> {
        match name {
            "global" => Some(ProxySpace::Global),
            "shared::cta" => Some(ProxySpace::SharedCta),
            "shared::cluster" => Some(ProxySpace::SharedCluster),
            _ => None,
        }
    }

    /// Whether the fence orders shared memory of the executing block.
    pub fn covers_shared(self) -> bool {
        self != ProxySpace::Global
    }
}

impl fmt::Display for ProxySpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProxySpace::All => "",
            ProxySpace::Global => ".global",
            ProxySpace::SharedCta => ".shared::cta",
            ProxySpace::SharedCluster => ".shared::cluster",
        })
    }
}
