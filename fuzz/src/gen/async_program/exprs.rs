//! The expressions of async programs: wait counts, conditions and source indices, each with
//! the patterns it exercises.
//!
//! Invariants: a count drawn as safe for distance `d` evaluates to a value in `0..=d` for
//! every value of the loop variables and inputs under int32 wrapping (so a reader of the group
//! `d` commits back is complete); a loose count may evaluate to anything, negative included.
//! Conditions never mention threads or blocks; divisors are positive constants.

use arbitrary::{Result, Unstructured};
use tirproof_ir::{BinOp, Buffer, CmpOp, DataType, Expr, Var};

use super::{AsyncGenConfig, AsyncPattern};

/// `2^30`: doubling it wraps an int32.
const NEAR_OVERFLOW_FACTOR: i64 = 1_073_741_824;
/// `2^31 - 1`: the largest int32.
const INT32_MAX: i64 = 2_147_483_647;
/// Elements of the float input `A`.
pub(super) const INPUT_LEN: i64 = 64;
/// Elements of the int32 input `K`.
pub(super) const DATA_LEN: i64 = 4;

/// What expressions may refer to at one place of a program.
pub(super) struct Scope<'a> {
    pub cfg: &'a AsyncGenConfig,
    /// Enclosing loop variables, outermost first.
    pub loops: Vec<Var>,
    pub n: Option<&'a Var>,
    pub input: &'a Buffer,
    pub data: &'a Buffer,
}

impl Scope<'_> {
    /// An enclosing loop variable, if there is one.
    fn loop_var(&self, u: &mut Unstructured<'_>) -> Result<Option<Expr>> {
        if self.loops.is_empty() {
            return Ok(None);
        }
        Ok(Some(Expr::var(u.choose(&self.loops)?)))
    }

    /// `K[c]`.
    fn data_value(&self, u: &mut Unstructured<'_>) -> Result<Expr> {
        Ok(Expr::load(self.data, vec![Expr::int(u.int_in_range(0..=DATA_LEN - 1)?)]))
    }

    /// A loop variable times a small constant plus a constant, or a constant.
    fn affine(&self, u: &mut Unstructured<'_>) -> Result<Expr> {
        let c = Expr::int(u.int_in_range(0..=3)?);
        Ok(match self.loop_var(u)? {
            Some(v) => v * Expr::int(u.int_in_range(1..=5)?) + c,
            None => c,
        })
    }

    /// A wait count for a reader of the group `distance` commits back (see the module
    /// documentation), and its pattern.
    pub fn count(&self, u: &mut Unstructured<'_>, distance: i64, safe: bool) -> Result<(Expr, AsyncPattern)> {
        let d = distance.max(0);
        let min = |a, b| Expr::binary(BinOp::Min, a, b);
        let max = |a, b| Expr::binary(BinOp::Max, a, b);
        let choice = u.int_in_range(0u8..=6)?;
        let data_ok = self.cfg.data_dependent;
        let overflow_ok = self.cfg.overflow;
        Ok(match (choice, safe) {
            (1, true) => (Expr::floormod(self.affine(u)?, Expr::int(d + 1)), AsyncPattern::ModuloCount),
            (1, false) => match self.loop_var(u)? {
                Some(v) => (Expr::floormod(v, Expr::int(2)) + Expr::int(1), AsyncPattern::ModuloCount),
                None => (Expr::int(d + 1), AsyncPattern::ConstantCount),
            },
            (2, true) => (max(min(self.affine(u)?, Expr::int(d)), Expr::int(0)), AsyncPattern::MinMaxCount),
            (2, false) => (min(self.affine(u)?, Expr::int(d + 1)), AsyncPattern::MinMaxCount),
            (3, _) => {
                let cond = self.condition(u)?.0;
                let high = if safe { d } else { d + 1 };
                let other = Expr::int(u.int_in_range(0..=d)?);
                (Expr::if_then_else(cond, Expr::int(high), other), AsyncPattern::IfThenElseCount)
            }
            (4, true) if data_ok => {
                let clamped = min(max(self.data_value(u)?, Expr::int(0)), Expr::int(d));
                (clamped, AsyncPattern::DataCount)
            }
            (4, false) if data_ok => (self.data_value(u)?, AsyncPattern::DataCount),
            (5, true) if overflow_ok => {
                let wrapped = self.overflowing(u)?;
                (Expr::floormod(wrapped, Expr::int(d + 1)), AsyncPattern::OverflowCount)
            }
            (5, false) if overflow_ok => {
                // Never above `d` in unbounded integers, negative once the product wraps.
                let wrapped = self.overflowing(u)? + Expr::int(d);
                (min(wrapped, Expr::int(d)), AsyncPattern::OverflowCount)
            }
            (6, false) => match (self.loop_var(u)?, self.n) {
                (Some(v), Some(n)) if u.arbitrary()? => (Expr::var(n) - v, AsyncPattern::AffineCount),
                (Some(v), _) => (v * Expr::int(5), AsyncPattern::AffineCount),
                (None, _) => (Expr::int(d + 1), AsyncPattern::ConstantCount),
            },
            (_, true) => (Expr::int(u.int_in_range(0..=d)?), AsyncPattern::ConstantCount),
            (_, false) => (Expr::int(d + 1), AsyncPattern::ConstantCount),
        })
    }

    /// `v * 2^30` for a loop variable (or `K[c]`): wraps once it reaches 2 (or -3).
    fn overflowing(&self, u: &mut Unstructured<'_>) -> Result<Expr> {
        let base = match self.loop_var(u)? {
            Some(v) => v,
            None => self.data_value(u)?,
        };
        Ok(base * Expr::int(NEAR_OVERFLOW_FACTOR))
    }

    /// A boolean condition on loop variables and inputs, and the patterns it exercises.
    pub fn condition(&self, u: &mut Unstructured<'_>) -> Result<(Expr, Vec<AsyncPattern>)> {
        let mut patterns = Vec::new();
        let first = self.atom(u, &mut patterns)?;
        let cond = match u.int_in_range(0u8..=5)? {
            1 => {
                patterns.push(AsyncPattern::Conjunction);
                Expr::and(first, self.atom(u, &mut patterns)?)
            }
            2 => {
                patterns.push(AsyncPattern::Disjunction);
                Expr::or(first, self.atom(u, &mut patterns)?)
            }
            3 => {
                patterns.push(AsyncPattern::Negation);
                Expr::logical_not(first)
            }
            4 => {
                patterns.push(AsyncPattern::IfThenElseCondition);
                let (a, b) = (self.atom(u, &mut patterns)?, self.atom(u, &mut patterns)?);
                Expr::if_then_else(first, a, b)
            }
            5 => {
                patterns.push(AsyncPattern::SelectCondition);
                let (a, b) = (self.atom(u, &mut patterns)?, self.atom(u, &mut patterns)?);
                Expr::select(first, a, b)
            }
            _ => first,
        };
        Ok((cond, patterns))
    }

    /// One comparison.
    fn atom(&self, u: &mut Unstructured<'_>, patterns: &mut Vec<AsyncPattern>) -> Result<Expr> {
        let var = self.loop_var(u)?;
        Ok(match (u.int_in_range(0u8..=3)?, var) {
            (1, _) if self.cfg.data_dependent => {
                patterns.push(AsyncPattern::FloatComparison);
                let index = self.input_index(u, patterns)?;
                let threshold = Expr::float(*u.choose(&[-0.5, 0.0, 0.5, 1.25])?, DataType::FLOAT32);
                Expr::cmp(*u.choose(&[CmpOp::Gt, CmpOp::Le])?, Expr::load(self.input, vec![index]), threshold)
            }
            (2, Some(v)) if self.cfg.overflow => {
                patterns.push(AsyncPattern::OverflowGuard);
                match u.arbitrary()? {
                    true => Expr::ge(v * Expr::int(NEAR_OVERFLOW_FACTOR), Expr::int(0)),
                    false => Expr::cmp(CmpOp::Gt, v + Expr::int(INT32_MAX), Expr::int(0)),
                }
            }
            (3, _) if self.cfg.data_dependent => {
                Expr::cmp(*u.choose(&[CmpOp::Gt, CmpOp::Ne])?, self.data_value(u)?, Expr::int(0))
            }
            (_, Some(v)) => match u.arbitrary()? {
                true => Expr::lt(v, Expr::int(u.int_in_range(1..=3)?)),
                false => Expr::eq(Expr::floormod(v, Expr::int(2)), Expr::int(u.int_in_range(0..=1)?)),
            },
            (_, None) => Expr::cmp(CmpOp::Gt, self.data_value(u)?, Expr::int(0)),
        })
    }

    /// An index into `A`, in bounds: affine in a loop variable, maybe near overflow or
    /// plus a loaded value, taken modulo the length.
    pub fn input_index(&self, u: &mut Unstructured<'_>, patterns: &mut Vec<AsyncPattern>) -> Result<Expr> {
        let mut index = self.affine(u)?;
        match u.int_in_range(0u8..=3)? {
            1 if self.cfg.overflow => {
                patterns.push(AsyncPattern::OverflowIndex);
                index = index + Expr::int(INT32_MAX);
            }
            2 if self.cfg.data_dependent => {
                patterns.push(AsyncPattern::DataIndex);
                index = index + self.data_value(u)?;
            }
            _ => {}
        }
        Ok(Expr::floormod(index, Expr::int(INPUT_LEN)))
    }
}
