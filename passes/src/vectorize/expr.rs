//! Vectorizing expressions of a `T.vectorized` loop body with `n` lanes.
//!
//! Each expression becomes `Uniform` (the same value in every iteration: kept as it is,
//! evaluated once) or `Varying` (one value per iteration, packed: a value of `l` lanes
//! becomes `l * n` lanes, iteration-major, which is also the docs/buffers-and-lanes.md order of a Ramp access
//! into an `l`-lane buffer). The loop variable becomes `Ramp(min, 1, n)`; a uniform scalar
//! operand of a varying operation is broadcast; a let whose value varies is rebound to a
//! fresh vector variable.
//!
//! Invariants: a uniform expression has one value in every iteration; a varying one has exactly `l * n` lanes; only the last index of an access
//! may vary; impure calls and lazy selects on a varying condition are refused, since
//! evaluating them once per vector would change what runs.

use std::collections::HashMap;

use tirproof_ir::index_arith::{add, mul};
use tirproof_ir::{BinOp, BufferLoad, Call, CallEffect, Expr, Var, VarId};

use super::blocker::Blocker;

/// A vectorized expression.
pub(super) enum Vx {
    Uniform(Expr),
    Varying(Expr),
}

impl Vx {
    fn is_varying(&self) -> bool {
        matches!(self, Vx::Varying(_))
    }

    pub(super) fn into_expr(self) -> Expr {
        match self {
            Vx::Uniform(e) | Vx::Varying(e) => e,
        }
    }
}

pub(super) struct Vectorizer<'a> {
    var: &'a Var,
    pub(super) lanes: u16,
    ramp: Expr,
    /// Let-bound variables whose value varies, and the vector variable replacing each.
    rebound: HashMap<VarId, Var>,
}

type R<T> = Result<T, Blocker>;

impl<'a> Vectorizer<'a> {
    pub(super) fn new(var: &'a Var, min: &Expr, lanes: u16) -> Self {
        let ramp = Expr::ramp(min.clone(), Expr::int_of(1, var.dtype()), lanes);
        Vectorizer { var, lanes, ramp, rebound: HashMap::new() }
    }

    /// `v` as a value of `l * n` lanes (broadcasting a uniform scalar).
    pub(super) fn widen(&self, v: Vx) -> R<Expr> {
        match v {
            Vx::Varying(e) => Ok(e),
            Vx::Uniform(e) if e.dtype().is_scalar() => Ok(Expr::broadcast(e, self.lanes)),
            Vx::Uniform(e) => Err(Blocker::Lanes(format!(
                "a uniform {} value cannot be broadcast to {} lanes",
                e.dtype(),
                self.lanes
            ))),
        }
    }

    /// Binds `var` to `value` for the scope of `body`; returns the binder to use.
    pub(super) fn bind<T>(&mut self, var: &Var, value: &Vx, body: impl FnOnce(&mut Self) -> R<T>) -> R<(Var, T)> {
        let binder = match value {
            Vx::Uniform(_) => var.clone(),
            Vx::Varying(e) => {
                let fresh = Var::new(var.name(), e.dtype());
                self.rebound.insert(var.id(), fresh.clone());
                fresh
            }
        };
        let out = body(self);
        self.rebound.remove(&var.id());
        Ok((binder, out?))
    }

    pub(super) fn expr(&mut self, e: &Expr) -> R<Vx> {
        match e {
            Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) => Ok(Vx::Uniform(e.clone())),
            Expr::Var(v) => Ok(self.var_use(v, e)),
            Expr::Binary { op, lhs, rhs } => self.zip(lhs, rhs, |a, b| ramp_arith(*op, a, b)),
            Expr::Cmp { op, lhs, rhs } => self.zip(lhs, rhs, |a, b| Expr::cmp(*op, a, b)),
            Expr::Logic { op, lhs, rhs } => self.zip(lhs, rhs, |a, b| Expr::logic(*op, a, b)),
            Expr::Not(x) => Ok(match self.expr(x)? {
                Vx::Uniform(x) => Vx::Uniform(Expr::logical_not(x)),
                Vx::Varying(x) => Vx::Varying(Expr::logical_not(x)),
            }),
            Expr::Select { cond, on_true, on_false } => self.select(cond, on_true, on_false),
            Expr::IfThenElse { cond, on_true, on_false } => self.lazy_select(cond, on_true, on_false),
            Expr::Cast { dtype, value } => Ok(match self.expr(value)? {
                Vx::Uniform(v) => Vx::Uniform(Expr::cast(*dtype, v)),
                Vx::Varying(v) => Vx::Varying(Expr::cast(dtype.with_lanes(v.dtype().lanes), v)),
            }),
            Expr::Ramp { base, stride, lanes } => match (self.expr(base)?, self.expr(stride)?) {
                (Vx::Uniform(b), Vx::Uniform(s)) => Ok(Vx::Uniform(Expr::ramp(b, s, *lanes))),
                _ => Err(Blocker::NestedVector),
            },
            Expr::Broadcast { value, lanes } => match self.expr(value)? {
                Vx::Uniform(v) => Ok(Vx::Uniform(Expr::broadcast(v, *lanes))),
                Vx::Varying(_) => Err(Blocker::NestedVector),
            },
            Expr::Let { var, value, body } => {
                let value = self.expr(value)?;
                let (binder, body) = self.bind(var, &value, |v| v.expr(body))?;
                let value = value.into_expr();
                Ok(match body {
                    Vx::Varying(b) => Vx::Varying(Expr::let_in(binder, value, b)),
                    // A body that does not use a varying binder has one value in every
                    // iteration; the binding stays for whatever its value would trap on.
                    Vx::Uniform(b) => Vx::Uniform(Expr::let_in(binder, value, b)),
                })
            }
            Expr::Load(load) => self.load(load),
            Expr::Call(call) => self.call(call),
        }
    }

    fn var_use(&self, v: &Var, e: &Expr) -> Vx {
        if v == self.var {
            Vx::Varying(self.ramp.clone())
        } else if let Some(vector) = self.rebound.get(&v.id()) {
            Vx::Varying(Expr::var(vector))
        } else {
            Vx::Uniform(e.clone())
        }
    }

    /// A two-operand node: uniform when both operands are, else both widened.
    fn zip(&mut self, lhs: &Expr, rhs: &Expr, build: impl FnOnce(Expr, Expr) -> Expr) -> R<Vx> {
        let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
        if let (Vx::Uniform(a), Vx::Uniform(b)) = (&a, &b) {
            return Ok(Vx::Uniform(build(a.clone(), b.clone())));
        }
        let (a, b) = (self.widen(a)?, self.widen(b)?);
        if a.dtype().lanes != b.dtype().lanes {
            return Err(Blocker::Lanes(format!("operands of {} and {} lanes", a.dtype().lanes, b.dtype().lanes)));
        }
        Ok(Vx::Varying(build(a, b)))
    }

    /// `T.Select`: both arms are evaluated anyway, so a varying condition selects per lane.
    fn select(&mut self, cond: &Expr, on_true: &Expr, on_false: &Expr) -> R<Vx> {
        let (c, t, f) = (self.expr(cond)?, self.expr(on_true)?, self.expr(on_false)?);
        if let (Vx::Uniform(c), Vx::Uniform(t), Vx::Uniform(f)) = (&c, &t, &f) {
            return Ok(Vx::Uniform(Expr::select(c.clone(), t.clone(), f.clone())));
        }
        let (t, f) = (self.widen(t)?, self.widen(f)?);
        let c = match c {
            Vx::Uniform(c) if c.dtype().is_scalar() => c,
            other => self.widen(other)?,
        };
        let (cl, tl) = (c.dtype().lanes, t.dtype().lanes);
        if (cl != 1 && cl != tl) || tl != f.dtype().lanes {
            return Err(Blocker::Lanes(format!("a select of {tl}-lane values on a {cl}-lane condition")));
        }
        Ok(Vx::Varying(Expr::select(c, t, f)))
    }

    /// `T.if_then_else`: only one arm runs, so the condition must be uniform.
    fn lazy_select(&mut self, cond: &Expr, on_true: &Expr, on_false: &Expr) -> R<Vx> {
        let c = match self.expr(cond)? {
            Vx::Uniform(c) => c,
            Vx::Varying(_) => return Err(Blocker::VaryingLazySelect),
        };
        let (t, f) = (self.expr(on_true)?, self.expr(on_false)?);
        if let (Vx::Uniform(t), Vx::Uniform(f)) = (&t, &f) {
            return Ok(Vx::Uniform(Expr::if_then_else(c, t.clone(), f.clone())));
        }
        Ok(Vx::Varying(Expr::if_then_else(c, self.widen(t)?, self.widen(f)?)))
    }

    /// The indices of an access to `buffer`; true when the last one varies.
    pub(super) fn indices(&mut self, buffer: &tirproof_ir::Buffer, indices: &[Expr]) -> R<(Vec<Expr>, bool)> {
        let last = indices.len().saturating_sub(1);
        let mut out = Vec::with_capacity(indices.len());
        let mut varying = false;
        for (dim, index) in indices.iter().enumerate() {
            match self.expr(index)? {
                Vx::Uniform(i) => out.push(i),
                Vx::Varying(_) if dim != last => {
                    return Err(Blocker::NonLastIndex { buffer: buffer.name().to_string(), dim })
                }
                Vx::Varying(i) if i.dtype().lanes != self.lanes => return Err(Blocker::NestedVector),
                Vx::Varying(i) => {
                    out.push(i);
                    varying = true;
                }
            }
        }
        if varying && buffer.dtype().lanes.checked_mul(self.lanes).is_none() {
            return Err(Blocker::TooManyLanes { extent: i64::from(self.lanes) * i64::from(buffer.dtype().lanes) });
        }
        Ok((out, varying))
    }

    fn load(&mut self, load: &BufferLoad) -> R<Vx> {
        let (indices, varying) = self.indices(&load.buffer, &load.indices)?;
        let e = Expr::load(&load.buffer, indices);
        Ok(if varying { Vx::Varying(e) } else { Vx::Uniform(e) })
    }

    /// Pure intrinsics apply lane by lane; anything else must run once per iteration.
    fn call(&mut self, call: &Call) -> R<Vx> {
        if call.external || call.effect != CallEffect::Pure {
            let why = if call.external { "an external call".to_string() } else { format!("{} effect", call.effect) };
            return Err(Blocker::Call { name: call.name.clone(), why });
        }
        let args = call.args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>()?;
        if args.iter().all(|a| !a.is_varying()) {
            let args = args.into_iter().map(Vx::into_expr).collect();
            return Ok(Vx::Uniform(Expr::Call(Call { args, ..call.clone() })));
        }
        let args = args.into_iter().map(|a| self.widen(a)).collect::<R<Vec<_>>>()?;
        let lanes = call.dtype.lanes.checked_mul(self.lanes);
        match lanes {
            Some(l) if args.iter().all(|a| a.dtype().lanes == l) => {
                Ok(Vx::Varying(Expr::Call(Call { args, dtype: call.dtype.with_lanes(l), ..call.clone() })))
            }
            _ => Err(Blocker::Call { name: call.name.clone(), why: "its arguments and result differ in lanes".into() }),
        }
    }
}

/// `a op b`, keeping affine index vectors Ramps: `Broadcast(x) + Ramp(b, s)` is
/// `Ramp(x + b, s)`, `Ramp(b, s) * Broadcast(c)` is `Ramp(b * c, s * c)`, and so on. Exact for
/// integers, whose `+ - *` wrap (the identities hold modulo 2^bits); floats are left alone.
fn ramp_arith(op: BinOp, a: Expr, b: Expr) -> Expr {
    if !a.dtype().is_integer() {
        return Expr::binary(op, a, b);
    }
    let neg = |e: Expr| Expr::binary(BinOp::Sub, Expr::int_of(0, e.dtype()), e);
    match (op, &a, &b) {
        (BinOp::Add, Expr::Ramp { base, stride, lanes }, Expr::Broadcast { value, .. })
        | (BinOp::Add, Expr::Broadcast { value, .. }, Expr::Ramp { base, stride, lanes }) => {
            Expr::ramp(add((**base).clone(), (**value).clone()), (**stride).clone(), *lanes)
        }
        (BinOp::Add, Expr::Ramp { base: b1, stride: s1, lanes }, Expr::Ramp { base: b2, stride: s2, .. }) => {
            Expr::ramp(add((**b1).clone(), (**b2).clone()), add((**s1).clone(), (**s2).clone()), *lanes)
        }
        (BinOp::Sub, Expr::Ramp { base, stride, lanes }, Expr::Broadcast { value, .. }) => {
            Expr::ramp(Expr::binary(BinOp::Sub, (**base).clone(), (**value).clone()), (**stride).clone(), *lanes)
        }
        (BinOp::Sub, Expr::Broadcast { value, .. }, Expr::Ramp { base, stride, lanes }) => {
            Expr::ramp(Expr::binary(BinOp::Sub, (**value).clone(), (**base).clone()), neg((**stride).clone()), *lanes)
        }
        (BinOp::Mul, Expr::Ramp { base, stride, lanes }, Expr::Broadcast { value, .. })
        | (BinOp::Mul, Expr::Broadcast { value, .. }, Expr::Ramp { base, stride, lanes }) => {
            Expr::ramp(mul((**base).clone(), (**value).clone()), mul((**stride).clone(), (**value).clone()), *lanes)
        }
        _ => Expr::binary(op, a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::{CmpOp, DataType, LogicOp};

    #[test]
    fn the_loop_variable_becomes_a_ramp_and_uniform_operands_broadcast() {
        let i = Var::new("i", DataType::INT32);
        let n = Var::new("n", DataType::INT32);
        let mut v = Vectorizer::new(&i, &Expr::int(0), 4);
        let e = Expr::binary(BinOp::Mul, Expr::var(&i), Expr::var(&n));
        let Vx::Varying(out) = v.expr(&e).unwrap() else { panic!("varying") };
        assert_eq!(out, Expr::ramp(Expr::int(0), Expr::var(&n), 4));
        let e = Expr::var(&n) + Expr::var(&i) * Expr::int(2);
        let Vx::Varying(out) = v.expr(&e).unwrap() else { panic!("varying") };
        assert_eq!(out, Expr::ramp(Expr::var(&n), Expr::int(2), 4));
        assert!(matches!(v.expr(&Expr::var(&n)).unwrap(), Vx::Uniform(_)));
    }

    #[test]
    fn a_varying_lazy_condition_blocks() {
        let i = Var::new("i", DataType::INT32);
        let mut v = Vectorizer::new(&i, &Expr::int(0), 4);
        let e = Expr::if_then_else(Expr::cmp(CmpOp::Lt, Expr::var(&i), Expr::int(2)), Expr::int(1), Expr::int(0));
        assert_eq!(v.expr(&e).err(), Some(Blocker::VaryingLazySelect));
        let ok = Expr::logic(LogicOp::And, Expr::bool(true), Expr::cmp(CmpOp::Lt, Expr::var(&i), Expr::int(2)));
        assert!(v.expr(&ok).is_ok());
    }
}
