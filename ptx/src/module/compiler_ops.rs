//! The operand vocabulary of the instructions compilers emit for sm_80 beyond what codegen
//! writes: warp shuffle modes, the approximate math functions, the non-IEEE divisions, the
//! packed half-precision conversions and the input types of `mma.sync`. Each prints as its
//! PTX spelling.
//!
//! Invariant: every variant is a form the PTX ISA defines for sm_80 at PTX 7.0, so a module
//! using them needs no version or target above sm_80's.

use std::fmt;

/// How `shfl.sync` picks the source lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// From `lane - b`, within the segment.
    Up,
    /// From `lane + b`, up to the clamp.
    Down,
    /// From `lane ^ b`.
    Bfly,
    /// From lane `b` of the segment.
    Idx,
}

impl ShflMode {
    pub const ALL: [ShflMode; 4] = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];

    pub fn name(self) -> &'static str {
        match self {
            ShflMode::Up => "up",
            ShflMode::Down => "down",
            ShflMode::Bfly => "bfly",
            ShflMode::Idx => "idx",
        }
    }
}

impl fmt::Display for ShflMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// The one-operand `.approx.f32` functions (`ex2.approx.f32 d, a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApproxFn {
    /// 2^a.
    Ex2,
    /// log2(a).
    Lg2,
    /// 1 / a.
    Rcp,
    /// 1 / sqrt(a).
    Rsqrt,
    Sqrt,
    Sin,
    Cos,
    Tanh,
}

impl ApproxFn {
    pub const ALL: [ApproxFn; 8] = [
        ApproxFn::Ex2,
        ApproxFn::Lg2,
        ApproxFn::Rcp,
        ApproxFn::Rsqrt,
        ApproxFn::Sqrt,
        ApproxFn::Sin,
        ApproxFn::Cos,
        ApproxFn::Tanh,
    ];

    pub fn mnemonic(self) -> &'static str {
        match self {
            ApproxFn::Ex2 => "ex2",
            ApproxFn::Lg2 => "lg2",
            ApproxFn::Rcp => "rcp",
            ApproxFn::Rsqrt => "rsqrt",
            ApproxFn::Sqrt => "sqrt",
            ApproxFn::Sin => "sin",
            ApproxFn::Cos => "cos",
            ApproxFn::Tanh => "tanh",
        }
    }

    /// Whether PTX allows `.ftz` on it (`tanh.approx.f32` has no such modifier).
    pub fn takes_ftz(self) -> bool {
        self != ApproxFn::Tanh
    }
}

/// The f32 divisions that are not IEEE-rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatDiv {
    /// `div.full.f32`: full-range, at most 2 ulp off.
    Full,
    /// `div.approx.f32`: `a * (1 / b)`, at most 2 ulp off for |b| in [2^-126, 2^126].
    Approx,
}

impl FloatDiv {
    pub fn name(self) -> &'static str {
        match self {
            FloatDiv::Full => "full",
            FloatDiv::Approx => "approx",
        }
    }
}

/// An instruction whose result PTX defines only within an error bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Approximate {
    Fn(ApproxFn),
    Div(FloatDiv),
}

impl fmt::Display for Approximate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Approximate::Fn(func) => write!(f, "{}.approx.f32", func.mnemonic()),
            Approximate::Div(div) => write!(f, "div.{}.f32", div.name()),
        }
    }
}

/// The packed destination of `cvt.rn.f16x2.f32 d, a, b` (`a` in the upper half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedHalf {
    F16x2,
    Bf16x2,
}

impl fmt::Display for PackedHalf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PackedHalf::F16x2 => ".f16x2",
            PackedHalf::Bf16x2 => ".bf16x2",
        })
    }
}

/// The input type of `mma.sync.aligned` with f32 accumulators, which fixes its shape: 16-bit
/// inputs are `m16n8k16` (two elements per register), tf32 is `m16n8k8` (one per register).
/// Each has four A registers, two B registers and four C/D registers per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MmaInput {
    #[default]
    F16,
    Bf16,
    Tf32,
}

impl MmaInput {
    pub fn shape(self) -> &'static str {
        match self {
            MmaInput::F16 | MmaInput::Bf16 => "m16n8k16",
            MmaInput::Tf32 => "m16n8k8",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MmaInput::F16 => "f16",
            MmaInput::Bf16 => "bf16",
            MmaInput::Tf32 => "tf32",
        }
    }

    /// The depth `k` of one instruction.
    pub fn k(self) -> usize {
        match self {
            MmaInput::F16 | MmaInput::Bf16 => 16,
            MmaInput::Tf32 => 8,
        }
    }
}
