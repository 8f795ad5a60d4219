//! The operand vocabulary of PTX instructions: instruction types, state spaces, registers,
//! special registers, immediates, addresses, labels and predicate guards.
//!
//! Invariant: every `Display` here is the PTX spelling, so the printer only joins pieces.
//! A register's class fixes its declared type (`%r` is `.b32`, `%fd` is `.f64`, ...), and
//! `Ty::reg_class` says which class holds a value of an instruction type.

use std::fmt;

/// The type suffix of an instruction (`.s32`, `.f32`, `.pred`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F32,
    F64,
    Pred,
    // Read from compilers' PTX for tensor-core kernels (codegen does not emit them):
    /// bfloat16: f32's sign and exponent with 7 fraction bits, in the low half of a `.b16`
    /// register or in halves of a `.b32` one.
    Bf16,
    /// TensorFloat-32: an f32 whose 13 low fraction bits are zero (`cvt.rna.tf32.f32`), held
    /// in a `.b32` register.
    Tf32,
}

impl Ty {
    /// Width in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::B8 | Ty::U8 | Ty::S8 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::Tf32 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64 | Ty::Bf16 | Ty::Tf32)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    /// The untyped bit type of the same width (`.b32` for `.s32`), for bitwise instructions.
    pub fn bit_type(self) -> Ty {
        match self.bits() {
            1 => Ty::Pred,
            8 => Ty::B8,
            16 => Ty::B16,
            32 => Ty::B32,
            _ => Ty::B64,
        }
    }

    /// The register class that holds values of this type; 8-bit values (only loaded and
    /// stored) live in 16-bit registers, as PTX requires.
    pub fn reg_class(self) -> RegClass {
        match self {
            Ty::Pred => RegClass::Pred,
            Ty::F32 => RegClass::F32,
            Ty::F64 => RegClass::F64,
            _ => match self.bits() {
                8 | 16 => RegClass::B16,
                32 => RegClass::B32,
                _ => RegClass::B64,
            },
        }
    }

    fn name(self) -> &'static str {
        match self {
            Ty::B8 => "b8",
            Ty::B16 => "b16",
            Ty::B32 => "b32",
            Ty::B64 => "b64",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::S8 => "s8",
            Ty::S16 => "s16",
            Ty::S32 => "s32",
            Ty::S64 => "s64",
            Ty::F16 => "f16",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Pred => "pred",
            Ty::Bf16 => "bf16",
            Ty::Tf32 => "tf32",
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// Where memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Global,
    Shared,
    Local,
    Param,
}

impl fmt::Display for StateSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StateSpace::Global => ".global",
            StateSpace::Shared => ".shared",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
        })
    }
}

/// A register bank: one declaration line per class in a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    Pred,
    B16,
    B32,
    B64,
    F32,
    F64,
}

impl RegClass {
    pub const ALL: [RegClass; 6] =
        [RegClass::Pred, RegClass::B16, RegClass::B32, RegClass::B64, RegClass::F32, RegClass::F64];

    /// The register name prefix (`%r`, `%rd`, ...).
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::B16 => "%rs",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
        }
    }

    /// The type the class is declared with.
    pub fn decl_type(self) -> Ty {
        match self {
            RegClass::Pred => Ty::Pred,
            RegClass::B16 => Ty::B16,
            RegClass::B32 => Ty::B32,
            RegClass::B64 => Ty::B64,
            RegClass::F32 => Ty::F32,
            RegClass::F64 => Ty::F64,
        }
    }
}

/// A virtual register: a class and an index within it (`%rd3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub class: RegClass,
    pub index: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)
    }
}

/// A dimension of a thread or block index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];

    /// The dimension named `x`, `y` or `z`.
    pub fn from_name(name: &str) -> Option<Dim> {
        Dim::ALL.into_iter().find(|d| d.to_string() == name)
    }

    /// The position of the dimension in a launch triple.
    pub fn position(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        })
    }
}

/// The special registers codegen reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `%tid.d`: the thread's index in its block.
    Tid(Dim),
    /// `%ctaid.d`: the block's index in the grid.
    Ctaid(Dim),
    /// `%nctaid.d`: the grid's extent (read from compilers' PTX; codegen does not emit it).
    Nctaid(Dim),
}

impl fmt::Display for Special {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Special::Tid(d) => write!(f, "%tid.{d}"),
            Special::Ctaid(d) => write!(f, "%ctaid.{d}"),
            Special::Nctaid(d) => write!(f, "%nctaid.{d}"),
        }
    }
}

/// A source operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// An integer immediate, in decimal.
    Imm(i64),
    /// A 32-bit float immediate by its bits (`0f3F800000`), so it prints exactly.
    F32(u32),
    /// A 64-bit float immediate by its bits (`0d3FF0000000000000`).
    F64(u64),
    Special(Special),
    /// The address of a variable of a state space (a `.shared` array).
    Symbol(String),
}

impl From<Reg> for Operand {
    fn from(reg: Reg) -> Self {
        Operand::Reg(reg)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => r.fmt(f),
            Operand::Imm(v) => write!(f, "{v}"),
            Operand::F32(bits) => write!(f, "0f{bits:08X}"),
            Operand::F64(bits) => write!(f, "0d{bits:016X}"),
            Operand::Special(s) => s.fmt(f),
            Operand::Symbol(name) => f.write_str(name),
        }
    }
}

/// What an address is relative to.
#[derive(Clone, Debug, PartialEq)]
pub enum AddrBase {
    Reg(Reg),
    /// A variable: a kernel parameter or an array of a state space.
    Symbol(String),
}

/// `[base+offset]` (bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
}

impl Address {
    pub fn reg(reg: Reg, offset: i64) -> Self {
        Address { base: AddrBase::Reg(reg), offset }
    }

    pub fn symbol(name: impl Into<String>) -> Self {
        Address { base: AddrBase::Symbol(name.into()), offset: 0 }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        match &self.base {
            AddrBase::Reg(r) => r.fmt(f)?,
            AddrBase::Symbol(name) => f.write_str(name)?,
        }
        // PTX spells a negative offset `+-4`, as nvcc prints it.
        if self.offset != 0 {
            write!(f, "+{}", self.offset)?;
        }
        f.write_str("]")
    }
}

/// A branch target within a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(pub u32);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "$L{}", self.0)
    }
}

/// `@%p` or `@!%p` in front of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub pred: Reg,
    pub negated: bool,
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}{}", if self.negated { "!" } else { "" }, self.pred)
    }
}
