//! The e-graph language of `cse-semantic`: the pure, load-free expressions of the IR.
//!
//! Operators are the IR's; leaves carry their type (`5:int32`, `$v7:int32`), and so do the
//! nodes whose type is not the type of an operand (casts, calls, vectors), so the type of
//! every node follows from the node and its operands (`analysis`). A leaf the language cannot
//! express (a string argument of a pure call) is an *opaque* leaf, an index into a side table.
//!
//! Invariant: `Display` and `FromStr` of every data type round-trip and never accept an
//! operator's spelling, so egg's pattern parser reads operators as operators.

use std::fmt;
use std::str::FromStr;

use egg::{define_language, Id};
use tirproof_ir::DataType;

define_language! {
    /// See the module documentation.
    pub enum TirLang {
        "+" = Add([Id; 2]),
        "-" = Sub([Id; 2]),
        "*" = Mul([Id; 2]),
        "/" = Div([Id; 2]),
        "//" = FloorDiv([Id; 2]),
        "%" = FloorMod([Id; 2]),
        "truncdiv" = TruncDiv([Id; 2]),
        "truncmod" = TruncMod([Id; 2]),
        "min" = Min([Id; 2]),
        "max" = Max([Id; 2]),
        "&" = BitAnd([Id; 2]),
        "|" = BitOr([Id; 2]),
        "^" = BitXor([Id; 2]),
        "<<" = Shl([Id; 2]),
        ">>" = Shr([Id; 2]),
        "==" = Eq([Id; 2]),
        "!=" = Ne([Id; 2]),
        "<" = Lt([Id; 2]),
        "<=" = Le([Id; 2]),
        ">" = Gt([Id; 2]),
        ">=" = Ge([Id; 2]),
        "and" = And([Id; 2]),
        "or" = Or([Id; 2]),
        "not" = Not([Id; 1]),
        "select" = Select([Id; 3]),
        "if_then_else" = IfThenElse([Id; 3]),
        Int(IntLeaf),
        Float(FloatLeaf),
        Var(VarLeaf),
        Opaque(OpaqueLeaf),
        Cast(CastTo, [Id; 1]),
        Ramp(RampLanes, [Id; 2]),
        Broadcast(BroadcastLanes, [Id; 1]),
        Call(CallHead, Box<[Id]>),
    }
}

/// Why a leaf or head could not be read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a node of the CSE e-graph language")]
pub struct ParseNodeError(String);

fn err(text: &str) -> ParseNodeError {
    ParseNodeError(text.to_string())
}

/// `text` as `PREFIX<payload>:dtype`, split into the payload and the type.
fn split_typed<'t>(text: &'t str, prefix: &str) -> Result<(&'t str, DataType), ParseNodeError> {
    let rest = text.strip_prefix(prefix).ok_or_else(|| err(text))?;
    let (payload, ty) = rest.rsplit_once(':').ok_or_else(|| err(text))?;
    Ok((payload, ty.parse().map_err(|_| err(text))?))
}

/// `PREFIX<payload>` (no type), the payload.
fn bracketed<'t>(text: &'t str, prefix: &str) -> Result<&'t str, ParseNodeError> {
    text.strip_prefix(prefix)
        .and_then(|r| r.strip_prefix('<'))
        .and_then(|r| r.strip_suffix('>'))
        .ok_or_else(|| err(text))
}

/// An integer or bool immediate: `5:int32`, `-1:int64`, `1:bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntLeaf {
    pub value: i64,
    pub dtype: DataType,
}

impl fmt::Display for IntLeaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}:{}", self.value, self.dtype)
    }
}

impl FromStr for IntLeaf {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (value, dtype) = split_typed(text, "#")?;
        Ok(IntLeaf { value: value.parse().map_err(|_| err(text))?, dtype })
    }
}

/// A float immediate by bit pattern of its `f64` value: `f0x3ff0000000000000:float32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatLeaf {
    pub bits: u64,
    pub dtype: DataType,
}

impl fmt::Display for FloatLeaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "f{:#x}:{}", self.bits, self.dtype)
    }
}

impl FromStr for FloatLeaf {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (bits, dtype) = split_typed(text, "f0x")?;
        Ok(FloatLeaf { bits: u64::from_str_radix(bits, 16).map_err(|_| err(text))?, dtype })
    }
}

/// A variable by identity: `$v7:int32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarLeaf {
    pub id: u32,
    pub dtype: DataType,
}

impl fmt::Display for VarLeaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "$v{}:{}", self.id, self.dtype)
    }
}

impl FromStr for VarLeaf {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (id, dtype) = split_typed(text, "$v")?;
        Ok(VarLeaf { id: id.parse().map_err(|_| err(text))?, dtype })
    }
}

/// An expression the language does not model, by index in the session's side table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpaqueLeaf {
    pub index: u32,
    pub dtype: DataType,
}

impl fmt::Display for OpaqueLeaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "$o{}:{}", self.index, self.dtype)
    }
}

impl FromStr for OpaqueLeaf {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (index, dtype) = split_typed(text, "$o")?;
        Ok(OpaqueLeaf { index: index.parse().map_err(|_| err(text))?, dtype })
    }
}

/// The target type of a cast: `cast<float32>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CastTo(pub DataType);

impl fmt::Display for CastTo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cast<{}>", self.0)
    }
}

impl FromStr for CastTo {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(CastTo(bracketed(text, "cast")?.parse().map_err(|_| err(text))?))
    }
}

/// The lanes of a ramp: `ramp<4>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RampLanes(pub u16);

impl fmt::Display for RampLanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ramp<{}>", self.0)
    }
}

impl FromStr for RampLanes {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(RampLanes(bracketed(text, "ramp")?.parse().map_err(|_| err(text))?))
    }
}

/// The lanes of a broadcast: `broadcast<4>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BroadcastLanes(pub u16);

impl fmt::Display for BroadcastLanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "broadcast<{}>", self.0)
    }
}

impl FromStr for BroadcastLanes {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(BroadcastLanes(bracketed(text, "broadcast")?.parse().map_err(|_| err(text))?))
    }
}

/// A pure call: `call<exp:float32>`, or `call_extern<f:float32>` for an external function.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallHead {
    pub name: String,
    pub dtype: DataType,
    pub external: bool,
}

impl fmt::Display for CallHead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = if self.external { "call_extern" } else { "call" };
        write!(f, "{head}<{}:{}>", self.name, self.dtype)
    }
}

impl FromStr for CallHead {
    type Err = ParseNodeError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (external, inner) = match bracketed(text, "call_extern") {
            Ok(inner) => (true, inner),
            Err(_) => (false, bracketed(text, "call")?),
        };
        let (name, ty) = inner.rsplit_once(':').ok_or_else(|| err(text))?;
        Ok(CallHead { name: name.to_string(), dtype: ty.parse().map_err(|_| err(text))?, external })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: FromStr + fmt::Display + PartialEq + fmt::Debug>(value: T) {
        let text = value.to_string();
        assert_eq!(text.parse::<T>().ok(), Some(value), "{text}");
    }

    #[test]
    fn leaves_and_heads_round_trip() {
        round_trip(IntLeaf { value: -5, dtype: DataType::INT64 });
        round_trip(FloatLeaf { bits: 1.5f64.to_bits(), dtype: DataType::FLOAT16 });
        round_trip(VarLeaf { id: 17, dtype: DataType::INT32.with_lanes(4) });
        round_trip(OpaqueLeaf { index: 2, dtype: DataType::HANDLE });
        round_trip(CastTo(DataType::FLOAT32));
        round_trip(RampLanes(8));
        round_trip(BroadcastLanes(4));
        round_trip(CallHead { name: "exp".into(), dtype: DataType::FLOAT32, external: false });
        round_trip(CallHead { name: "f".into(), dtype: DataType::INT32, external: true });
    }

    #[test]
    fn operators_are_not_leaves() {
        for op in ["+", "-", "//", "%", "min", "<", "not", "select"] {
            assert!(op.parse::<IntLeaf>().is_err() && op.parse::<VarLeaf>().is_err() && op.parse::<CastTo>().is_err());
        }
    }
}
