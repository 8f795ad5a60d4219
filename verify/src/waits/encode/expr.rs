//! Expressions as terms: integers with the program's fixed-width semantics (wrapped where
//! `ranges` says a value may leave its type; divisions by a possible zero not encoded),
//! conditions, wait counts, and the fresh unknowns that stand for values read from memory.

use tirproof_ir::print::print_expr;
use tirproof_ir::subst::Substitution;
use tirproof_ir::{BinOp, CmpOp, DataType, Expr, LogicOp, VarId};
use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{FuncDecl, Sort};

use crate::solver::Query;
use crate::waits::fold::{add, and, div, eq, ge, gt, ite, le, lt, max, min, mul, neg, not, or, sub};
use crate::waits::names::Role;
use crate::waits::ranges::ValueRange;

use super::{declare, Enc, Encoder, LoopValues, Unsupported};

impl Encoder<'_> {
    /// The value of an integer expression with the loop values `at` (an instance's). Loads
    /// (data-dependent values) are fresh unknowns when a query is given, else unsupported
    /// (but in wait counts and loop bounds: [`Encoder::unknown`]).
    pub fn int(&mut self, e: &Expr, at: &LoopValues, query: Option<&mut Query>) -> Enc<Int> {
        let mut q = query;
        self.int_inner(e, at, &mut q)
    }

    pub(super) fn int_inner(&mut self, e: &Expr, inst: &LoopValues, q: &mut Option<&mut Query>) -> Enc<Int> {
        let exact = match e {
            Expr::Int { value, .. } => return Ok(Int::from_i64(*value)),
            Expr::Var(v) if self.model.data_vars.contains(&v.id()) => {
                return match self.model.data_defs.get(&v.id()).cloned() {
                    // The value it was bound to: its loads are the unknowns, the rest exact.
                    Some(value) if value.dtype() == e.dtype() => self.int_inner(&value, inst, q),
                    _ => self.unknown(e, q),
                };
            }
            Expr::Var(v) => {
                return self.var(v.id(), inst).ok_or_else(|| Unsupported(format!("the variable `{v}`")));
            }
            Expr::Let { var, value, body } => {
                let inlined = Substitution::new().var(var, (**value).clone()).expr(body);
                return self.int_inner(&inlined, inst, q);
            }
            Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_bool() => {
                let c = self.bool_inner(value, inst, q)?;
                return Ok(ite(&c, &Int::from_i64(1), &Int::from_i64(0)));
            }
            Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_integer() => {
                self.int_inner(value, inst, q)?
            }
            // An integer made from a float is data.
            Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_float() => {
                return self.unknown(e, q);
            }
            Expr::Binary { op, lhs, rhs } => {
                // A divisor that may be zero: the interpreter traps there and runs nothing after,
                // so whatever value Z3's total division gives that case over-approximates it;
                // an instance whose own evaluation divides by zero does not run
                // ([`Encoder::instance`]).
                let (a, b) = (self.int_inner(lhs, inst, q)?, self.int_inner(rhs, inst, q)?);
                let divides =
                    matches!(op, BinOp::FloorDiv | BinOp::FloorMod | BinOp::TruncDiv | BinOp::TruncMod | BinOp::Div);
                if divides && rhs.as_int().is_none_or(|k| k == 0) {
                    self.no_trap.push(not(&eq(&b, &Int::from_i64(0))));
                }
                binary(*op, &a, &b, rhs.as_int()).ok_or_else(|| Unsupported(format!("the operator `{op}`")))?
            }
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                let c = self.bool_inner(cond, inst, q)?;
                // `T.if_then_else` evaluates only the arm it takes: a division in the other
                // arm does not trap.
                let evaluated = self.no_trap.len();
                let (a, b) = (self.int_inner(on_true, inst, q)?, self.int_inner(on_false, inst, q)?);
                if matches!(e, Expr::IfThenElse { .. }) {
                    self.no_trap.truncate(evaluated);
                }
                ite(&c, &a, &b)
            }
            Expr::Load(_) => return self.unknown(e, q),
            other => return Err(Unsupported(format!("the expression {}", print_expr(other)))),
        };
        Ok(self.wrapped(e, exact))
    }

    /// `exact`, the unwrapped value of `e`, as a value of `e`'s type.
    pub(super) fn wrapped(&mut self, e: &Expr, exact: Int) -> Int {
        let dtype = e.dtype();
        match ValueRange::of_type(dtype) {
            Some(full) if !dtype.is_bool() && !self.ranges.exact(e).is_some_and(|r| r.within(full)) => {
                wrap(&exact, dtype)
            }
            _ => exact,
        }
    }

    /// A value read from memory: any value of its type, fresh in each encoding. Declared in
    /// the query when there is one; otherwise an anonymous constant whose range the checker
    /// assumes with the query's other deferred facts ([`Encoder::deferred`]).
    pub(super) fn unknown(&mut self, e: &Expr, q: &mut Option<&mut Query>) -> Enc<Int> {
        if self.model.reads_fixed_data(e) {
            return Ok(self.fixed_value(e));
        }
        // A read of a named site is a function of the instance, not an unknown of its own.
        if self.load_site.is_none() {
            self.counter += 1;
        }
        // A wait count is encoded once per wait instance, the bounds of a loop once per
        // execution (`data_bounds`): an anonymous unknown is exact. Elsewhere without a query
        // (loop bounds and conditions of commits, counted in closed form and remembered per
        // event) one unknown would stand for values that differ between iterations.
        if q.is_none() && !self.data_counts {
            return Err(Unsupported(format!("a value read from memory: {}", print_expr(e))));
        }
        let name = match &mut self.load_site {
            // One function per read of a loop's bounds, shared by every execution of the loop.
            Some((prefix, k)) => {
                *k += 1;
                format!("{prefix}_read_{k}")
            }
            None => format!("loaded_at_{}", self.counter),
        };
        let v = match (&self.per_instance, q) {
            (Some(args), _) => per_instance_unknown(&name, args, &Sort::int())
                .as_int()
                .ok_or_else(|| Unsupported(format!("a value read from memory: {}", print_expr(e))))?,
            (None, Some(query)) => declare(query, self.model, Role::Loaded(self.counter))?,
            (None, None) => Int::fresh_const("loaded"),
        };
        if let Some(r) = ValueRange::of_type(e.dtype()) {
            self.deferred.push(and(&[ge(&v, &big(r.lo)), le(&v, &big(r.hi))]));
        }
        Ok(v)
    }

    pub fn boolean(&mut self, e: &Expr, at: &LoopValues, query: &mut Query) -> Enc<Bool> {
        let mut q = Some(query);
        self.bool_inner(e, at, &mut q)
    }

    pub(super) fn bool_inner(&mut self, e: &Expr, inst: &LoopValues, q: &mut Option<&mut Query>) -> Enc<Bool> {
        Ok(match e {
            Expr::Int { value, .. } if e.dtype().is_bool() => Bool::from_bool(*value != 0),
            // A comparison of floats depends on data (a float constant alone decides nothing).
            Expr::Cmp { lhs, .. } if lhs.dtype().is_float() => return self.unknown_condition(e, q),
            Expr::Cmp { op, lhs, rhs } => {
                let (a, b) = (self.int_inner(lhs, inst, q)?, self.int_inner(rhs, inst, q)?);
                compare(*op, &a, &b)
            }
            Expr::Logic { op, lhs, rhs } => {
                let (a, b) = (self.bool_inner(lhs, inst, q)?, self.bool_inner(rhs, inst, q)?);
                match op {
                    LogicOp::And => and(&[a, b]),
                    LogicOp::Or => or(&[a, b]),
                }
            }
            // `&`, `|` and `^` of two bools are the logical operators.
            Expr::Binary { op: op @ (BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor), lhs, rhs }
                if e.dtype().is_bool() =>
            {
                let (a, b) = (self.bool_inner(lhs, inst, q)?, self.bool_inner(rhs, inst, q)?);
                match op {
                    BinOp::BitAnd => and(&[a, b]),
                    BinOp::BitOr => or(&[a, b]),
                    _ => Bool::xor(&a, &b),
                }
            }
            Expr::Not(v) => not(&self.bool_inner(v, inst, q)?),
            Expr::Let { var, value, body } => {
                let inlined = Substitution::new().var(var, (**value).clone()).expr(body);
                return self.bool_inner(&inlined, inst, q);
            }
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                let c = self.bool_inner(cond, inst, q)?;
                let evaluated = self.no_trap.len();
                let (a, b) = (self.bool_inner(on_true, inst, q)?, self.bool_inner(on_false, inst, q)?);
                if matches!(e, Expr::IfThenElse { .. }) {
                    self.no_trap.truncate(evaluated);
                }
                or(&[and(&[c.clone(), a]), and(&[not(&c), b])])
            }
            Expr::Cast { value, .. } if value.dtype().is_integer() => {
                not(&eq(&self.int_inner(value, inst, q)?, &Int::from_i64(0)))
            }
            Expr::Load(_) => return self.unknown_condition(e, q),
            Expr::Var(v) if self.model.data_vars.contains(&v.id()) => {
                return match self.model.data_defs.get(&v.id()).cloned() {
                    Some(value) if value.dtype() == e.dtype() => self.bool_inner(&value, inst, q),
                    _ => self.unknown_condition(e, q),
                };
            }
            _ => return Err(Unsupported(format!("the condition {}", print_expr(e)))),
        })
    }

    /// A condition that depends on data: it may go either way.
    pub(super) fn unknown_condition(&mut self, e: &Expr, q: &mut Option<&mut Query>) -> Enc<Bool> {
        if self.model.reads_fixed_data(e) {
            return Ok(self.fixed_condition(e));
        }
        if self.load_site.is_none() {
            self.counter += 1;
        }
        let unsupported = || Unsupported(format!("the condition {}, which depends on data", print_expr(e)));
        if q.is_none() && !self.data_counts {
            return Err(unsupported());
        }
        let name = match &mut self.load_site {
            Some((prefix, k)) => {
                *k += 1;
                format!("{prefix}_condition_{k}")
            }
            None => format!("cond_at_{}", self.counter),
        };
        Ok(match (&self.per_instance, q) {
            (Some(args), _) => per_instance_unknown(&name, args, &Sort::bool()).as_bool().ok_or_else(unsupported)?,
            (None, Some(query)) => declare(query, self.model, Role::Condition(self.counter))?.eq(Int::from_i64(1)),
            (None, None) => Bool::fresh_const("cond"),
        })
    }

    /// A value read from memory that is one value for the whole execution (see
    /// [`Model::reads_fixed_data`](crate::waits::model::Model::reads_fixed_data)): one
    /// unknown per query for every evaluation of the same expression, in its type's range.
    fn fixed_value(&mut self, e: &Expr) -> Int {
        let key = print_expr(e);
        if let Some(v) = self.fixed_values.get(&key) {
            return v.clone();
        }
        let v = Int::fresh_const("memory");
        if let Some(r) = ValueRange::of_type(e.dtype()) {
            self.deferred.push(and(&[ge(&v, &big(r.lo)), le(&v, &big(r.hi))]));
        }
        self.fixed_values.insert(key, v.clone());
        v
    }

    /// A condition on fixed data that the encoding does not evaluate (a comparison of floats,
    /// a boolean loaded): one choice per query for every evaluation of the same condition.
    /// Either outcome is possible for a comparison of one float read with a finite constant
    /// (a NaN makes it false, an infinity or the constant itself true) and for a boolean
    /// read; for any other condition a free choice may be one no memory makes, so a
    /// counterexample resting on it is not confirmed ([`Encoder::inexact`]).
    fn fixed_condition(&mut self, e: &Expr) -> Bool {
        let key = print_expr(e);
        if let Some(c) = self.fixed_conditions.get(&key) {
            return c.clone();
        }
        let finite = |x: &Expr| matches!(x, Expr::Float { value, .. } if value.is_finite());
        let read = |x: &Expr| matches!(x, Expr::Load(_));
        let either_way = match e {
            Expr::Load(_) => true,
            Expr::Cmp { lhs, rhs, .. } => (read(lhs) && finite(rhs)) || (finite(lhs) && read(rhs)),
            _ => false,
        };
        if !either_way {
            self.inexact.push(format!("the condition {} on memory, taken as a free choice", print_expr(e)));
        }
        let c = Bool::fresh_const("memory_condition");
        self.fixed_conditions.insert(key, c.clone());
        c
    }

    /// A wait's in-flight count at the instance `at` (values read from memory are unknowns).
    pub fn wait_count(&mut self, count: &Expr, at: &LoopValues) -> Enc<Int> {
        self.data_counts = true;
        let n = self.int(count, at, None);
        self.data_counts = false;
        n
    }

    pub(super) fn var(&self, id: VarId, at: &LoopValues) -> Option<Int> {
        if let Some(p) = self.params.get(&id) {
            return Some(p.clone());
        }
        let l = self.model.is_loop_var(id)?;
        at.get(&l).or_else(|| self.threads.get(&l)).cloned()
    }
}

/// An uninterpreted function `name` of `args` with values of sort `range`, applied to them.
pub(super) fn per_instance_unknown(name: &str, args: &[Int], range: &Sort) -> Dynamic {
    let int = Sort::int();
    let domain: Vec<&Sort> = args.iter().map(|_| &int).collect();
    let args: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
    FuncDecl::new(name, &domain, range).apply(&args)
}

pub(super) fn compare(op: CmpOp, a: &Int, b: &Int) -> Bool {
    match op {
        CmpOp::Eq => eq(a, b),
        CmpOp::Ne => not(&eq(a, b)),
        CmpOp::Lt => lt(a, b),
        CmpOp::Le => le(a, b),
        CmpOp::Gt => gt(a, b),
        CmpOp::Ge => ge(a, b),
    }
}

/// TVM's integer operators on exact values (the caller wraps the result into its type);
/// `divisor` is the right operand when it is a constant. Division by zero is the caller's to
/// exclude. `None`: not encoded (shifts by a variable, bitwise operators other than a mask).
pub(super) fn binary(op: BinOp, a: &Int, b: &Int, divisor: Option<i64>) -> Option<Int> {
    let zero = Int::from_i64(0);
    Some(match op {
        BinOp::Add => add(&[a.clone(), b.clone()]),
        BinOp::Sub => sub(a, b),
        BinOp::Mul => mul(&[a.clone(), b.clone()]),
        BinOp::FloorDiv => floordiv(a, b),
        BinOp::FloorMod => sub(a, &mul(&[b.clone(), floordiv(a, b)])),
        BinOp::TruncDiv | BinOp::Div => {
            let q = floordiv(a, b);
            let exact = eq(&mul(&[b.clone(), q.clone()]), a);
            let negative = Bool::xor(&lt(a, &zero), lt(b, &zero));
            ite(&and(&[negative, not(&exact)]), &add(&[q.clone(), Int::from_i64(1)]), &q)
        }
        BinOp::TruncMod => {
            let q = binary(BinOp::TruncDiv, a, b, divisor)?;
            sub(a, &mul(&[b.clone(), q]))
        }
        BinOp::Min => min(a, b),
        BinOp::Max => max(a, b),
        // A shift by a constant in range is a product or a floor division by a power of two
        // (an arithmetic right shift for signed values); out of range it traps.
        BinOp::Shl => mul(&[a.clone(), power_of_two(divisor.filter(|k| (0..63).contains(k))?)]),
        BinOp::Shr => floordiv(a, &power_of_two(divisor.filter(|k| (0..63).contains(k))?)),
        // `x & (2^k - 1)` keeps the low k bits: `x mod 2^k` in two's complement.
        BinOp::BitAnd => {
            let mask = divisor
                .filter(|m| m.checked_add(1).and_then(|v| u64::try_from(v).ok()).is_some_and(u64::is_power_of_two))?;
            let modulus = Int::from_i64(mask + 1);
            sub(a, &mul(&[modulus.clone(), div(a, &modulus)]))
        }
        _ => return None,
    })
}

/// `2^k`, `0 <= k < 63`.
pub(super) fn power_of_two(k: i64) -> Int {
    Int::from_i64(1i64 << k)
}

/// An integer of any size as a term (values beyond i64 are built as sums).
pub(super) fn big(v: i128) -> Int {
    match i64::try_from(v) {
        Ok(small) => Int::from_i64(small),
        Err(_) => {
            let half = v / 2;
            add(&[big(half), big(v - half)])
        }
    }
}

/// `x` wrapped into the integer type `dtype`: two's complement of its width for signed
/// types, modulo `2^width` for unsigned ones.
///
/// Why the `ite`: most wrapped terms never leave their type in the executions a query is
/// about (`n - 6` under `n >= 6`); the test lets Z3 settle those without the division.
pub(super) fn wrap(x: &Int, dtype: DataType) -> Int {
    let bits = i128::from(dtype.bits.clamp(1, 64));
    let Some(full) = ValueRange::of_type(dtype) else { return x.clone() };
    let modulus = big(1i128 << bits);
    let offset = if dtype.is_int() { big(1i128 << (bits - 1)) } else { Int::from_i64(0) };
    let wrapped = sub(x, &mul(&[modulus.clone(), div(&add(&[x.clone(), offset]), &modulus)]));
    let fits = and(&[ge(x, &big(full.lo)), le(x, &big(full.hi))]);
    ite(&fits, x, &wrapped)
}

/// Floor division: SMT-LIB `div` is Euclidean, which is the floor for positive divisors.
pub(super) fn floordiv(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    ite(&gt(b, &zero), &div(a, b), &div(&neg(a), &neg(b)))
}
