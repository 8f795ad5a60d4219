//! A second exact model of integer arithmetic, over Z3's mathematical integers, used to prove
//! the division rules that bit-blasting cannot (a 32-bit divider makes the SAT problem too
//! hard, while integer reasoning proves `a == (a // c) * c + a % c` at once).
//!
//! A value of an n-bit type is an integer in its range; `+ - *` wrap (`wrap`); `//` and `%`
//! round toward negative infinity (SMT-LIB's `div`/`mod` are Euclidean, so a negative divisor
//! flips signs), `truncdiv`/`truncmod` toward zero; `MIN // -1` wraps; division by zero faults.
//! Only what the division rules need is modelled (immediates, variables, arithmetic, `min`,
//! `max` of scalar integers); anything else is `Unsupported`, and the caller keeps
//! the bit-vector verdict.

use std::collections::HashMap;

use tirproof_ir::{BinOp, DataType, Expr, TypeCode, Var, VarId};
use z3::ast::{Bool, Int, BV};

use super::EncodeError;
use crate::solver::{Query, Signedness};

/// The integer model of one query.
pub struct IntModel<'q> {
    query: &'q mut Query,
    vars: HashMap<VarId, (Int, Bool)>,
}

/// 2^k (k <= 64).
fn pow2(k: u32) -> Int {
    Int::from_u128(1u128 << k)
}

fn add(a: &Int, b: &Int) -> Int {
    Int::add(&[a.clone(), b.clone()])
}

fn sub(a: &Int, b: &Int) -> Int {
    Int::sub(&[a.clone(), b.clone()])
}

fn neg(a: &Int) -> Int {
    a.unary_minus()
}

/// The range of an integer type, as integers.
fn range(t: DataType) -> Result<(Int, Int), EncodeError> {
    let bits = u32::from(t.bits);
    let unsupported = || EncodeError::Unsupported(format!("{t} in the integer model"));
    if !t.is_scalar() || !(1..=64).contains(&bits) {
        return Err(unsupported());
    }
    let one = Int::from_i64(1);
    match t.code {
        TypeCode::Int => Ok((neg(&pow2(bits - 1)), sub(&pow2(bits - 1), &one))),
        TypeCode::UInt => Ok((Int::from_i64(0), sub(&pow2(bits), &one))),
        _ => Err(unsupported()),
    }
}

impl<'q> IntModel<'q> {
    pub fn new(query: &'q mut Query) -> Self {
        IntModel { query, vars: HashMap::new() }
    }

    /// Declares a pattern variable: any value of its type, and a fault flag.
    pub fn declare_faulty(&mut self, var: &Var) -> Result<(Int, Bool), EncodeError> {
        let (lo, hi) = range(var.dtype())?;
        let value = self.query.int(var.name())?;
        let flag = self.query.bv(&format!("{}.faults", var.name()), 1, Signedness::Unsigned)?;
        self.query.assume(Bool::and(&[value.ge(&lo), value.le(&hi)]));
        let fault = flag.eq(BV::from_u64(1, 1));
        self.vars.insert(var.id(), (value.clone(), fault.clone()));
        Ok((value, fault))
    }

    pub fn assume(&mut self, fact: Bool) {
        self.query.assume(fact);
    }

    /// The value of `e` and when it faults.
    pub fn expr(&mut self, e: &Expr) -> Result<(Int, Bool), EncodeError> {
        let no = || Bool::from_bool(false);
        match e {
            Expr::Int { value, dtype } => {
                range(*dtype)?;
                Ok((Int::from_i64(*value), no()))
            }
            Expr::Var(v) => {
                self.vars.get(&v.id()).cloned().ok_or_else(|| EncodeError::Unsupported(format!("free variable `{v}`")))
            }
            Expr::Binary { op, lhs, rhs } => {
                let t = lhs.dtype();
                let ((a, fa), (b, fb)) = (self.expr(lhs)?, self.expr(rhs)?);
                let (v, f) = binary(*op, t, &a, &b)?;
                Ok((v, Bool::or(&[fa, fb, f])))
            }
            _ => Err(EncodeError::Unsupported(format!("`{}` in the integer model", tirproof_ir::text::print_expr(e)))),
        }
    }
}

/// `x` reduced to the range of `t`, as two's complement (or unsigned) wrapping does.
fn wrap(x: &Int, t: DataType) -> Result<Int, EncodeError> {
    let bits = u32::from(t.bits);
    let modulus = pow2(bits);
    Ok(match t.code {
        TypeCode::Int => {
            let half = pow2(bits - 1);
            sub(&add(x, &half).modulo(&modulus), &half)
        }
        _ => x.modulo(&modulus),
    })
}

fn binary(op: BinOp, t: DataType, a: &Int, b: &Int) -> Result<(Int, Bool), EncodeError> {
    let zero = Int::from_i64(0);
    let no = Bool::from_bool(false);
    let signed = t.code == TypeCode::Int;
    let by_zero = b.eq(&zero);
    Ok(match op {
        BinOp::Add => (wrap(&add(a, b), t)?, no),
        BinOp::Sub => (wrap(&sub(a, b), t)?, no),
        BinOp::Mul => (wrap(&Int::mul(&[a.clone(), b.clone()]), t)?, no),
        BinOp::Min => (b.lt(a).ite(b, a), no),
        BinOp::Max => (a.lt(b).ite(b, a), no),
        BinOp::FloorDiv if signed => (wrap(&floor_div(a, b), t)?, by_zero),
        BinOp::FloorMod if signed => (floor_mod(a, b), by_zero),
        BinOp::Div | BinOp::TruncDiv if signed => (wrap(&trunc_div(a, b), t)?, by_zero),
        BinOp::TruncMod if signed => (trunc_mod(a, b), by_zero),
        BinOp::Div | BinOp::TruncDiv | BinOp::FloorDiv => (a.div(b), by_zero),
        BinOp::TruncMod | BinOp::FloorMod => (a.modulo(b), by_zero),
        _ => return Err(EncodeError::Unsupported(format!("`{op}` in the integer model"))),
    })
}

/// Division rounding toward negative infinity (`div` is Euclidean: floor for a positive
/// divisor; for a negative one, floor(a / b) = floor(-a / -b)).
fn floor_div(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    b.gt(&zero).ite(&a.div(b), &neg(a).div(neg(b)))
}

/// The remainder with the sign of the divisor.
fn floor_mod(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    b.gt(&zero).ite(&a.modulo(b), &neg(&neg(a).modulo(neg(b))))
}

fn abs(x: &Int) -> Int {
    x.lt(Int::from_i64(0)).ite(&neg(x), x)
}

/// Division rounding toward zero: the quotient of the magnitudes, negated when the signs
/// differ.
fn trunc_div(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    let q = abs(a).div(abs(b));
    a.lt(&zero).xor(b.lt(&zero)).ite(&neg(&q), &q)
}

/// The remainder with the sign of the dividend.
fn trunc_mod(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    let r = abs(a).modulo(abs(b));
    a.lt(&zero).ite(&neg(&r), &r)
}
