//! The e-class analysis: the type of every class, its integer constant if it is one, and
//! whether its members may trap.
//!
//! Types make the rules sound for their types: a rule fires only when the class of its first
//! pattern variable has a type the rule holds for (`rules`). Constants and traps feed side
//! conditions (`?c` is a positive constant, `?b` never faults). Constants are also folded: a
//! scalar integer `+`, `-` or `*` of two constants is a constant (wrapped to its type, as the
//! interpreter computes it), and its class gets that immediate, so `i // (4 * 2)` (what the
//! rule `floordiv-nest` builds) meets `i // 8`.
//!
//! Invariants: every member of a class has the same type (rules never relate two types; a
//! merge of different types sets `conflict`, and the session then falls back to syntactic
//! classes); all members of a class fault under the same conditions (rules preserve faults), so
//! a class may trap only if every member it was built from may (`may_trap` merges with `and`).

use egg::{Analysis, DidMerge, EGraph, Id, Language};
use tirproof_ir::{DataType, TypeCode};

use super::lang::{IntLeaf, TirLang};

/// The analysis (no state of its own).
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts;

/// What the analysis knows about a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassFacts {
    pub dtype: DataType,
    /// The value of an integer (or bool) scalar immediate in the class.
    pub constant: Option<i64>,
    pub may_trap: bool,
    /// Two types met in this class (a bug in a rule): do not trust the e-graph.
    pub conflict: bool,
}

pub type Graph = EGraph<TirLang, Facts>;

impl Analysis<TirLang> for Facts {
    type Data = ClassFacts;

    fn make(egraph: &mut Graph, enode: &TirLang, _id: Id) -> ClassFacts {
        let kid = |i: usize| enode.children().get(i).map(|c| egraph[*c].data);
        let first = kid(0);
        let dtype = node_type(enode, first.map(|d| d.dtype), kid(1).map(|d| d.dtype));
        let constant = match enode {
            TirLang::Int(leaf) if leaf.dtype.is_scalar() => Some(leaf.value),
            _ => fold(enode, dtype, first.and_then(|d| d.constant), kid(1).and_then(|d| d.constant)),
        };
        let below = enode.children().iter().any(|c| egraph[*c].data.may_trap);
        let own = node_may_trap(enode, first.map(|d| d.dtype), kid(1));
        let conflict = enode.children().iter().any(|c| egraph[*c].data.conflict);
        ClassFacts { dtype, constant, may_trap: below || own, conflict }
    }

    fn merge(&mut self, a: &mut ClassFacts, b: ClassFacts) -> DidMerge {
        let before = *a;
        a.conflict |= b.conflict || a.dtype != b.dtype;
        a.constant = a.constant.or(b.constant);
        a.may_trap &= b.may_trap;
        let merged = *a;
        let b_changed = merged.constant != b.constant || merged.may_trap != b.may_trap || merged.conflict != b.conflict;
        DidMerge(merged != before, b_changed)
    }

    fn modify(egraph: &mut Graph, id: Id) {
        let facts = egraph[id].data;
        if let (Some(value), false) = (facts.constant, facts.conflict) {
            let leaf = egraph.add(TirLang::Int(IntLeaf { value, dtype: facts.dtype }));
            egraph.union(id, leaf);
        }
    }
}

/// The constant a scalar integer `+ - *` of constants evaluates to, wrapped to `dtype`.
fn fold(n: &TirLang, dtype: DataType, a: Option<i64>, b: Option<i64>) -> Option<i64> {
    if !dtype.is_scalar() || !matches!(dtype.code, TypeCode::Int | TypeCode::UInt | TypeCode::Bool) {
        return None;
    }
    let (a, b) = (a? as u64, b? as u64);
    let bits = match n {
        TirLang::Add(_) => a.wrapping_add(b),
        TirLang::Sub(_) => a.wrapping_sub(b),
        TirLang::Mul(_) => a.wrapping_mul(b),
        _ => return None,
    };
    Some(wrap(bits, dtype))
}

/// Two's-complement bits reduced to `dtype`: sign-extended for signed types, zero-extended for
/// unsigned ones and bool (the form immediates have in the IR).
pub fn wrap(bits: u64, dtype: DataType) -> i64 {
    let width = u32::from(dtype.bits.clamp(1, 64));
    if width == 64 {
        return bits as i64;
    }
    let low = bits & ((1u64 << width) - 1);
    if dtype.code == TypeCode::Int && low >> (width - 1) == 1 {
        (low | !((1u64 << width) - 1)) as i64
    } else {
        low as i64
    }
}

/// The type of a node from its operands' types (`first` is the first operand's, `second` the
/// second's); mirrors `Expr::dtype`.
fn node_type(n: &TirLang, first: Option<DataType>, second: Option<DataType>) -> DataType {
    let first = first.unwrap_or(DataType::HANDLE);
    match n {
        TirLang::Int(l) => l.dtype,
        TirLang::Float(l) => l.dtype,
        TirLang::Var(l) => l.dtype,
        TirLang::Opaque(l) => l.dtype,
        TirLang::Cast(to, _) => to.0,
        TirLang::Call(head, _) => head.dtype,
        TirLang::Ramp(lanes, _) => first.with_lanes(lanes.0),
        TirLang::Broadcast(lanes, _) => first.with_lanes(first.lanes.saturating_mul(lanes.0)),
        TirLang::Select(_) | TirLang::IfThenElse(_) => second.unwrap_or(DataType::HANDLE),
        TirLang::Eq(_)
        | TirLang::Ne(_)
        | TirLang::Lt(_)
        | TirLang::Le(_)
        | TirLang::Gt(_)
        | TirLang::Ge(_)
        | TirLang::And(_)
        | TirLang::Or(_)
        | TirLang::Not(_) => first.bool_like(),
        _ => first,
    }
}

/// Whether the node itself may fault (see `eligible::node_may_trap`), given its first
/// operand's type and its second operand's facts.
fn node_may_trap(n: &TirLang, first: Option<DataType>, second: Option<ClassFacts>) -> bool {
    let float = first.is_some_and(|t| t.is_float());
    let divisor_ok = second.is_some_and(|d| d.constant.is_some_and(|c| c != 0) && d.dtype.is_scalar());
    match n {
        TirLang::Div(_) | TirLang::FloorDiv(_) | TirLang::FloorMod(_) | TirLang::TruncDiv(_) | TirLang::TruncMod(_) => {
            !float && !divisor_ok
        }
        TirLang::Shl(_) | TirLang::Shr(_) => {
            let bits = first.map_or(0, |t| i64::from(t.bits));
            !second.is_some_and(|d| d.constant.is_some_and(|c| (0..bits).contains(&c)) && d.dtype.is_scalar())
        }
        TirLang::Cast(to, _) => float && matches!(to.0.code, TypeCode::Int | TypeCode::UInt),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_wraps_to_the_type() {
        assert_eq!(wrap(i64::from(i32::MAX) as u64 + 1, DataType::INT32), i64::from(i32::MIN));
        assert_eq!(wrap(300, DataType::new(TypeCode::UInt, 8, 1)), 44);
        assert_eq!(wrap((-1i64) as u64, DataType::new(TypeCode::UInt, 16, 1)), 65535);
        assert_eq!(wrap(0xff, DataType::INT8), -1);
        let mul = TirLang::Mul([Id::from(0), Id::from(1)]);
        assert_eq!(fold(&mul, DataType::INT32, Some(65536), Some(65536)), Some(0));
        assert_eq!(fold(&mul, DataType::INT32, Some(4), Some(2)), Some(8));
        assert_eq!(fold(&mul, DataType::FLOAT32, Some(4), Some(2)), None);
    }
}
