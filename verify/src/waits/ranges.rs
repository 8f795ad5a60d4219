//! Value ranges of integer expressions: where a program's fixed-width arithmetic cannot wrap,
//! the encoder may use mathematical integers as they are; everywhere else it wraps.
//!
//! The program's integers are two's complement of their type's width (`ir::int_arith`): `+`,
//! `-`, `*`, `<<`, narrowing casts and `MIN // -1` wrap. The encoder works on SMT integers and
//! wraps a result explicitly (`x - 2^w * floor((x + 2^(w-1)) / 2^w)`) unless the range of its
//! exact value lies inside its type, which is what this module decides. Wrapping everywhere
//! would be exact too, but every wrap adds a division for Z3 to reason about; most indices and
//! counts (`i + 1`, `(i + 5) % 7`) provably never leave their type.
//!
//! Invariant: [`Ranges::exact`] contains every value the operator can produce from operand
//! values in their [`Ranges::value`] ranges (an over-approximation), and [`Ranges::value`]
//! contains every value the expression can have at run time. Loop variables range over
//! `[min, min + extent)` (the interpreter refuses a loop whose range does not fit its
//! variable's type), and no further than accesses in bounds allow (`model::iteration_bound`); parameters over their type (at least 0 where they are an extent of a
//! parameter buffer), loaded data and anything not analysed over their type.

use std::collections::HashMap;

use tirproof_ir::{BinOp, DataType, Expr};

use super::model::{LoopId, Model};

/// An inclusive interval of integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueRange {
    pub lo: i128,
    pub hi: i128,
}

impl ValueRange {
    fn point(v: i128) -> Self {
        ValueRange { lo: v, hi: v }
    }

    /// Every value of an integer (or bool) scalar type; `None` for other types.
    pub fn of_type(dtype: DataType) -> Option<Self> {
        let bits = u32::from(dtype.bits);
        if dtype.is_bool() {
            return Some(ValueRange { lo: 0, hi: 1 });
        }
        if !dtype.is_integer() || !(1..=64).contains(&bits) {
            return None;
        }
        Some(if dtype.is_int() {
            ValueRange { lo: -(1i128 << (bits - 1)), hi: (1i128 << (bits - 1)) - 1 }
        } else {
            ValueRange { lo: 0, hi: (1i128 << bits) - 1 }
        })
    }

    fn join(self, other: Self) -> Self {
        ValueRange { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }

    pub fn within(self, outer: Self) -> bool {
        outer.lo <= self.lo && self.hi <= outer.hi
    }

    pub fn contains(self, v: i128) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// The interval of `f` over the corners of two intervals (monotone in each argument).
    fn corners(a: Self, b: Self, f: impl Fn(i128, i128) -> Option<i128>) -> Option<Self> {
        let values = [f(a.lo, b.lo)?, f(a.lo, b.hi)?, f(a.hi, b.lo)?, f(a.hi, b.hi)?];
        Some(ValueRange { lo: *values.iter().min()?, hi: *values.iter().max()? })
    }
}

/// Floor division of i128 values, `b != 0`.
fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// The ranges of one model's expressions, with its loop variables' ranges remembered.
pub struct Ranges<'m> {
    model: &'m Model,
    loops: HashMap<LoopId, ValueRange>,
}

impl<'m> Ranges<'m> {
    pub fn new(model: &'m Model) -> Self {
        Ranges { model, loops: HashMap::new() }
    }

    /// The values `e` can have at run time (its type's range when its exact value may wrap).
    pub fn value(&mut self, e: &Expr) -> Option<ValueRange> {
        let full = ValueRange::of_type(e.dtype())?;
        Some(match self.exact(e) {
            Some(r) if r.within(full) => r,
            _ => full,
        })
    }

    /// The values of `e`'s top operator computed without wrapping, from its operands' values;
    /// `None` when not known (then the encoder must wrap, or refuse).
    pub fn exact(&mut self, e: &Expr) -> Option<ValueRange> {
        match e {
            Expr::Int { value, .. } => Some(ValueRange::point(i128::from(*value))),
            Expr::Var(v) => match self.model.is_loop_var(v.id()) {
                Some(l) => Some(self.loop_range(l)),
                None => self.variable(v),
            },
            Expr::Cast { value, .. } => self.value(value),
            Expr::Binary { op, lhs, rhs } => {
                let (a, b) = (self.value(lhs)?, self.value(rhs)?);
                binary(*op, a, b)
            }
            Expr::Select { on_true, on_false, .. } | Expr::IfThenElse { on_true, on_false, .. } => {
                Some(self.value(on_true)?.join(self.value(on_false)?))
            }
            _ => ValueRange::of_type(e.dtype()),
        }
    }

    /// The values of a variable that is not a loop's: its type's, and at least 0 for an
    /// extent of a parameter buffer (the program's precondition).
    pub fn variable(&self, v: &tirproof_ir::Var) -> Option<ValueRange> {
        let full = ValueRange::of_type(v.dtype())?;
        Some(if self.model.extent_params.contains(&v.id()) { ValueRange { lo: full.lo.max(0), ..full } } else { full })
    }

    /// `[min, min + extent)` of a loop, within its variable's type.
    fn loop_range(&mut self, l: LoopId) -> ValueRange {
        if let Some(known) = self.loops.get(&l) {
            return *known;
        }
        let info = self.model.loop_info(l);
        let full = ValueRange::of_type(info.var.dtype()).unwrap_or(ValueRange { lo: i128::MIN, hi: i128::MAX });
        let (min, extent) = (info.min.clone(), info.extent.clone());
        let most = info.max_iterations.map_or(i128::MAX, i128::from);
        let range = match (self.value(&min), self.value(&extent)) {
            (Some(m), Some(x)) => {
                let hi = (m.hi + x.hi.min(most) - 1).max(m.lo);
                ValueRange { lo: m.lo.max(full.lo), hi: hi.min(full.hi) }
            }
            _ => full,
        };
        self.loops.insert(l, range);
        range
    }
}

/// The exact result range of `a op b`, or `None` when it is not bounded here.
fn binary(op: BinOp, a: ValueRange, b: ValueRange) -> Option<ValueRange> {
    let constant = (b.lo == b.hi).then_some(b.lo);
    match op {
        BinOp::Add => Some(ValueRange { lo: a.lo + b.lo, hi: a.hi + b.hi }),
        BinOp::Sub => Some(ValueRange { lo: a.lo - b.hi, hi: a.hi - b.lo }),
        BinOp::Mul => ValueRange::corners(a, b, i128::checked_mul),
        BinOp::Min => Some(ValueRange { lo: a.lo.min(b.lo), hi: a.hi.min(b.hi) }),
        BinOp::Max => Some(ValueRange { lo: a.lo.max(b.lo), hi: a.hi.max(b.hi) }),
        BinOp::FloorDiv if !b.contains(0) => ValueRange::corners(a, b, |x, y| Some(floor_div(x, y))),
        BinOp::TruncDiv | BinOp::Div if !b.contains(0) => ValueRange::corners(a, b, i128::checked_div),
        BinOp::FloorMod if !b.contains(0) => {
            let m = b.lo.abs().max(b.hi.abs()) - 1;
            Some(if b.lo > 0 { ValueRange { lo: 0, hi: m } } else { ValueRange { lo: -m, hi: m } })
        }
        BinOp::TruncMod if !b.contains(0) => {
            let m = b.lo.abs().max(b.hi.abs()) - 1;
            Some(ValueRange { lo: if a.lo >= 0 { 0 } else { -m }, hi: if a.hi <= 0 { 0 } else { m } })
        }
        BinOp::Shl => {
            let k = u32::try_from(constant?).ok().filter(|k| *k < 64)?;
            ValueRange::corners(a, a, |x, _| x.checked_mul(1i128 << k))
        }
        BinOp::Shr => {
            let k = u32::try_from(constant?).ok().filter(|k| *k < 64)?;
            Some(ValueRange { lo: floor_div(a.lo, 1i128 << k), hi: floor_div(a.hi, 1i128 << k) })
        }
        BinOp::BitAnd if constant.is_some_and(|m| m >= 0) => Some(ValueRange { lo: 0, hi: b.lo }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lo: i128, hi: i128) -> ValueRange {
        ValueRange { lo, hi }
    }

    #[test]
    fn int32_products_leave_the_type() {
        let int32 = ValueRange::of_type(DataType::INT32).unwrap();
        let product = binary(BinOp::Mul, r(0, 15), r(268_435_456, 268_435_456)).unwrap();
        assert!(!product.within(int32));
        assert!(binary(BinOp::Add, r(0, 6), r(1, 1)).unwrap().within(int32));
    }

    #[test]
    fn division_by_a_range_with_zero_is_not_bounded() {
        assert_eq!(binary(BinOp::FloorDiv, r(0, 10), r(-1, 1)), None);
        assert_eq!(binary(BinOp::FloorMod, r(-5, 10), r(3, 3)), Some(r(0, 2)));
        assert_eq!(binary(BinOp::FloorDiv, r(-7, 7), r(2, 2)), Some(r(-4, 3)));
    }
}
