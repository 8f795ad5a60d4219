//! A second exact model of integer arithmetic, over Z3's mathematical integers, used to prove
//! the division rules that bit-blasting cannot (a 32-bit divider makes the SAT problem too
//! hard, while integer reasoning proves `a == (a // c) * c + a % c` at once).
//!
//! A value of an n-bit type is an integer in its range; `+ - *` wrap (`wrap`); `//` and `%`
//! round toward negative infinity (SMT-LIB's `div`/`mod` are Euclidean, so a negative divisor
//! flips signs), `truncdiv`/`truncmod` toward zero; `MIN // -1` wraps; division by zero faults.
//! Bools are 0 or 1. Scalar integer and bool expressions are modelled (immediates, variables,
//! arithmetic, `min`, `max`, comparisons, logic, selects, `if_then_else`, lets, integer casts);
//! anything else (floats, vectors, loads, calls, bitwise operators) is `Unsupported`, and the
//! caller keeps the bit-vector verdict. The validation of CSE uses it, with the environment of
//! the walk, for rewrites the bit-vector model cannot decide.

use std::collections::HashMap;

use std::collections::HashSet;

use tirproof_ir::{BinOp, CmpOp, DataType, Expr, LogicOp, TypeCode, Var, VarId};
use z3::ast::{Bool, Int, BV};

use super::{EncodeError, Env, LetValue, Side};
use crate::solver::{Query, Signedness};

/// The integer model of one query.
pub struct IntModel<'q> {
    query: &'q mut Query,
    env: Option<&'q Env>,
    vars: HashMap<VarId, (Int, Bool)>,
    lets: HashMap<VarId, Value>,
    names: HashSet<String>,
    /// That the lets of the environment that were read did not fault (see `encode`).
    reached: Vec<Bool>,
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
        TypeCode::Bool => Ok((Int::from_i64(0), one)),
        _ => Err(unsupported()),
    }
}

impl<'q> IntModel<'q> {
    pub fn new(query: &'q mut Query) -> Self {
        IntModel {
            query,
            env: None,
            vars: HashMap::new(),
            lets: HashMap::new(),
            names: HashSet::new(),
            reached: Vec::new(),
        }
    }

    /// A model whose let-bound variables are those of `env` (for validation).
    pub fn with_env(query: &'q mut Query, env: &'q Env) -> Self {
        IntModel { env: Some(env), ..IntModel::new(query) }
    }

    /// Encodes every let of the environment it can (see `Encoder::reach_all`).
    pub fn reach_all(&mut self) {
        let Some(env) = self.env else { return };
        let mut ids: Vec<&VarId> = env.lets.keys().collect();
        ids.sort();
        for id in ids {
            if let (Some(LetValue::Value { value, side }), false) = (env.lets.get(id), self.lets.contains_key(id)) {
                if let Ok(v) = self.value(value, *side) {
                    self.reached.push(v.fault.not());
                    self.lets.insert(*id, v);
                }
            }
        }
    }

    /// That the lets read computed their values without a fault.
    pub fn reached(&self) -> Bool {
        if self.reached.is_empty() {
            Bool::from_bool(true)
        } else {
            Bool::and(&self.reached)
        }
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

    /// The value of `e`, possibly not reduced to its type's range (see `Value`).
    pub fn value(&mut self, e: &Expr, side: Side) -> Result<Value, EncodeError> {
        match e {
            Expr::Int { value, dtype } => {
                range(*dtype)?;
                Ok(Value::exact(Int::from_i64(*value), no()))
            }
            Expr::Var(v) => self.var(v, side),
            Expr::Binary { op, lhs, rhs } => {
                let t = lhs.dtype();
                if t.code == TypeCode::Bool {
                    return Err(EncodeError::Unsupported("bool arithmetic in the integer model".into()));
                }
                let (a, b) = (self.value(lhs, side)?, self.value(rhs, side)?);
                let fault = Bool::or(&[a.fault.clone(), b.fault.clone()]);
                // The ring operations commute with reduction modulo 2^n: reduce only later.
                let ring = match op {
                    BinOp::Add => Some(add(&a.term, &b.term)),
                    BinOp::Sub => Some(sub(&a.term, &b.term)),
                    BinOp::Mul => Some(Int::mul(&[a.term.clone(), b.term.clone()])),
                    _ => None,
                };
                if let Some(term) = ring {
                    return Ok(Value { term, fault, exact: false });
                }
                let (v, f) = binary(*op, t, &normal(&a, t)?, &normal(&b, t)?)?;
                Ok(Value::exact(v, Bool::or(&[fault, f])))
            }
            Expr::Cmp { op, lhs, rhs } => {
                let t = lhs.dtype();
                let (a, b) = (self.value(lhs, side)?, self.value(rhs, side)?);
                let c = compare(*op, &normal(&a, t)?, &normal(&b, t)?);
                Ok(Value::exact(bit(&c), Bool::or(&[a.fault, b.fault])))
            }
            Expr::Logic { op, lhs, rhs } => {
                let (a, b) = (self.value(lhs, side)?, self.value(rhs, side)?);
                let both = [truthy(&a.term), truthy(&b.term)];
                let c = if *op == LogicOp::And { Bool::and(&both) } else { Bool::or(&both) };
                Ok(Value::exact(bit(&c), Bool::or(&[a.fault, b.fault])))
            }
            Expr::Not(v) => {
                let a = self.value(v, side)?;
                Ok(Value::exact(bit(&truthy(&a.term).not()), a.fault))
            }
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                let c = self.value(cond, side)?;
                let taken = truthy(&normal(&c, cond.dtype())?);
                let (t, f) = (self.value(on_true, side)?, self.value(on_false, side)?);
                let fault = if matches!(e, Expr::IfThenElse { .. }) {
                    Bool::or(&[c.fault, taken.ite(&t.fault, &f.fault)])
                } else {
                    Bool::or(&[c.fault, t.fault.clone(), f.fault.clone()])
                };
                Ok(Value { term: taken.ite(&t.term, &f.term), fault, exact: t.exact && f.exact })
            }
            Expr::Let { var, value, body } => {
                let v = self.value(value, side)?;
                let id = self.resolve(var, side);
                self.lets.insert(id, v.clone());
                let b = self.value(body, side)?;
                Ok(Value { fault: Bool::or(&[v.fault, b.fault.clone()]), ..b })
            }
            Expr::Cast { dtype, value } if value.dtype().is_scalar() && !value.dtype().is_float() => {
                let v = self.value(value, side)?;
                range(*dtype)?;
                let x = normal(&v, value.dtype())?;
                let out = if dtype.code == TypeCode::Bool { bit(&truthy(&x)) } else { wrap(&x, *dtype)? };
                Ok(Value::exact(out, v.fault))
            }
            _ => Err(EncodeError::Unsupported(format!("`{}` in the integer model", tirproof_ir::print::print_expr(e)))),
        }
    }

    fn resolve(&self, var: &Var, side: Side) -> VarId {
        match (side, self.env) {
            (Side::Rewritten, Some(env)) => env.rename.get(&var.id()).map_or(var.id(), Var::id),
            _ => var.id(),
        }
    }

    fn var(&mut self, v: &Var, side: Side) -> Result<Value, EncodeError> {
        let id = self.resolve(v, side);
        if let Some(value) = self.lets.get(&id) {
            return Ok(Value { fault: no(), ..value.clone() });
        }
        if let Some((term, fault)) = self.vars.get(&id) {
            return Ok(Value::exact(term.clone(), fault.clone()));
        }
        let Some(env) = self.env else {
            return Err(EncodeError::Unsupported(format!("free variable `{v}`")));
        };
        if let Some(LetValue::Value { value, side: value_side }) = env.lets.get(&id) {
            let value = self.value(value, *value_side)?;
            self.reached.push(value.fault.not());
            self.lets.insert(id, value.clone());
            return Ok(Value { fault: no(), ..value });
        }
        let (lo, hi) = range(v.dtype())?;
        let mut name = v.name().to_string();
        let mut k = 1;
        while !self.names.insert(name.clone()) {
            name = format!("{}#{k}", v.name());
            k += 1;
        }
        let value = self.query.int(&name)?;
        self.query.assume(Bool::and(&[value.ge(&lo), value.le(&hi)]));
        self.vars.insert(id, (value.clone(), no()));
        Ok(Value::exact(value, no()))
    }
}

/// A value in the integer model: a term congruent to the value modulo 2^bits, already reduced
/// to the type's range when `exact`. Sums and products are left unreduced (reduction commutes
/// with them), so polynomial identities stay polynomial for Z3.
#[derive(Clone, Debug)]
pub struct Value {
    pub term: Int,
    pub fault: Bool,
    pub exact: bool,
}

impl Value {
    fn exact(term: Int, fault: Bool) -> Self {
        Value { term, fault, exact: true }
    }
}

fn no() -> Bool {
    Bool::from_bool(false)
}

/// The value of `v`, reduced to the range of `t`.
fn normal(v: &Value, t: DataType) -> Result<Int, EncodeError> {
    if v.exact {
        Ok(v.term.clone())
    } else {
        wrap(&v.term, t)
    }
}

/// Whether two values of type `t` are equal: congruent modulo 2^bits (both are in range or
/// reduce to it, so congruence is equality).
pub fn same(a: &Value, b: &Value, t: DataType) -> Bool {
    if a.exact && b.exact {
        return a.term.eq(&b.term);
    }
    sub(&a.term, &b.term).modulo(pow2(u32::from(t.bits))).eq(Int::from_i64(0))
}

fn bit(c: &Bool) -> Int {
    c.ite(&Int::from_i64(1), &Int::from_i64(0))
}

fn truthy(v: &Int) -> Bool {
    v.eq(Int::from_i64(0)).not()
}

fn compare(op: CmpOp, a: &Int, b: &Int) -> Bool {
    match op {
        CmpOp::Eq => a.eq(b),
        CmpOp::Ne => a.eq(b).not(),
        CmpOp::Lt => a.lt(b),
        CmpOp::Le => a.le(b),
        CmpOp::Gt => a.gt(b),
        CmpOp::Ge => a.ge(b),
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
