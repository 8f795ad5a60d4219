//! Expression evaluation.
//!
//! `eval_s` evaluates a one-lane expression to canonical bits without allocating (the hot
//! path); `eval_v` evaluates any expression to one canonical scalar per lane. The compiler
//! guarantees operand lanes agree, so the lane-wise loops here never see a mismatch (and
//! fall back to an interpreter error rather than panic if they ever did).

use tirproof_ir::expr::{BinOp, LogicOp};

use super::exec::Executor;
use super::program::{CExpr, CallNode, LetNode, RampNode, SelectNode, SlotRef};
use super::thread::Thread;
use tirproof_machine::arith::{self, cast::cast, math};
use tirproof_machine::error::{Trap, R};
use tirproof_machine::value::{float_from_int, norm, truthy};

fn lane_mismatch() -> Trap {
    Trap::ill_formed("operands with different numbers of lanes")
}

impl Executor<'_> {
    /// Evaluates a one-lane expression.
    pub(crate) fn eval_s(&mut self, th: &mut Thread, e: &CExpr) -> R<u64> {
        match e {
            CExpr::Const(bits) => Ok(*bits),
            CExpr::Slot(slot) => Ok(th.frame.scalars[*slot as usize]),
            CExpr::Bin(n) => {
                let a = self.eval_s(th, &n.lhs)?;
                let b = self.eval_s(th, &n.rhs)?;
                arith::binary(n.op, n.num, a, b)
            }
            CExpr::Cmp(n) => {
                let a = self.eval_s(th, &n.lhs)?;
                let b = self.eval_s(th, &n.rhs)?;
                Ok(u64::from(arith::compare(n.op, n.num, a, b)))
            }
            CExpr::Logic(n) => {
                let a = self.eval_s(th, &n.lhs)?;
                let b = self.eval_s(th, &n.rhs)?;
                Ok(match n.op {
                    LogicOp::And => a & b,
                    LogicOp::Or => a | b,
                })
            }
            CExpr::Not { value, .. } => Ok(self.eval_s(th, value)? ^ 1),
            CExpr::Select(n) => self.select_s(th, n),
            CExpr::Cast(n) => {
                let v = self.eval_s(th, &n.value)?;
                cast(n.from, n.to, v)
            }
            CExpr::Let(n) => {
                self.bind_let(th, n)?;
                self.eval_s(th, &n.body)
            }
            CExpr::Load(n) => self.load_s(th, &n.access),
            CExpr::Call(n) => self.call_s(th, n),
            CExpr::Token(n) => self.token(th, n),
            CExpr::Fail { error, .. } => Err(Trap::from((**error).clone())),
            // One-lane ramps and broadcasts, or vector slots of one lane.
            CExpr::ConstV(_) | CExpr::SlotV { .. } | CExpr::Ramp(_) | CExpr::Broadcast(_) => {
                self.eval_v(th, e)?.first().copied().ok_or_else(lane_mismatch)
            }
        }
    }

    fn select_s(&mut self, th: &mut Thread, n: &SelectNode) -> R<u64> {
        let c = truthy(n.cond_num, self.eval_s(th, &n.cond)?);
        if n.lazy {
            return self.eval_s(th, if c { &n.on_true } else { &n.on_false });
        }
        let t = self.eval_s(th, &n.on_true)?;
        let f = self.eval_s(th, &n.on_false)?;
        Ok(if c { t } else { f })
    }

    fn call_s(&mut self, th: &mut Thread, n: &CallNode) -> R<u64> {
        let mut args = [0u64; 2];
        for (slot, arg) in args.iter_mut().zip(&n.args) {
            *slot = self.eval_s(th, arg)?;
        }
        Ok(math::apply(n.func, n.arg_num, &args[..n.args.len().min(2)]))
    }

    fn bind_let(&mut self, th: &mut Thread, n: &LetNode) -> R<()> {
        match n.slot {
            SlotRef::Scalar(slot) => {
                let v = self.eval_s(th, &n.value)?;
                th.frame.scalars[slot as usize] = v;
            }
            SlotRef::Vector(slot) => {
                let v = self.eval_v(th, &n.value)?;
                th.frame.vectors[slot as usize] = v;
            }
        }
        Ok(())
    }

    /// Evaluates any expression, one value per lane.
    pub(crate) fn eval_v(&mut self, th: &mut Thread, e: &CExpr) -> R<Vec<u64>> {
        match e {
            CExpr::ConstV(v) => Ok(v.to_vec()),
            CExpr::SlotV { slot, .. } => Ok(th.frame.vectors[*slot as usize].clone()),
            CExpr::Bin(n) => {
                let (a, b) = self.eval_pair(th, &n.lhs, &n.rhs)?;
                a.iter().zip(&b).map(|(x, y)| arith::binary(n.op, n.num, *x, *y)).collect()
            }
            CExpr::Cmp(n) => {
                let (a, b) = self.eval_pair(th, &n.lhs, &n.rhs)?;
                Ok(a.iter().zip(&b).map(|(x, y)| u64::from(arith::compare(n.op, n.num, *x, *y))).collect())
            }
            CExpr::Logic(n) => {
                let (a, b) = self.eval_pair(th, &n.lhs, &n.rhs)?;
                let and = n.op == LogicOp::And;
                Ok(a.iter().zip(&b).map(|(x, y)| if and { x & y } else { x | y }).collect())
            }
            CExpr::Not { value, .. } => Ok(self.eval_v(th, value)?.into_iter().map(|x| x ^ 1).collect()),
            CExpr::Select(n) => self.select_v(th, n),
            CExpr::Cast(n) => {
                let v = self.eval_v(th, &n.value)?;
                v.into_iter().map(|x| cast(n.from, n.to, x)).collect()
            }
            CExpr::Ramp(n) => self.ramp(th, n),
            CExpr::Broadcast(n) => {
                let v = self.eval_v(th, &n.value)?;
                Ok(v.iter().copied().cycle().take(usize::from(n.lanes)).collect())
            }
            CExpr::Let(n) => {
                self.bind_let(th, n)?;
                self.eval_v(th, &n.body)
            }
            CExpr::Load(n) => self.load_v(th, &n.access),
            CExpr::Call(n) => self.call_v(th, n),
            CExpr::Fail { error, .. } => Err(Trap::from((**error).clone())),
            CExpr::Const(_) | CExpr::Slot(_) | CExpr::Token(_) => Ok(vec![self.eval_s(th, e)?]),
        }
    }

    fn eval_pair(&mut self, th: &mut Thread, lhs: &CExpr, rhs: &CExpr) -> R<(Vec<u64>, Vec<u64>)> {
        let a = self.eval_v(th, lhs)?;
        let b = self.eval_v(th, rhs)?;
        if a.len() != b.len() {
            return Err(lane_mismatch());
        }
        Ok((a, b))
    }

    fn select_v(&mut self, th: &mut Thread, n: &SelectNode) -> R<Vec<u64>> {
        let cond = self.eval_v(th, &n.cond)?;
        if let [c] = cond[..] {
            let c = truthy(n.cond_num, c);
            if n.lazy {
                return self.eval_v(th, if c { &n.on_true } else { &n.on_false });
            }
            let (t, f) = self.eval_pair(th, &n.on_true, &n.on_false)?;
            return Ok(if c { t } else { f });
        }
        // A vector condition selects per lane, so both arms are needed even when lazy.
        let (t, f) = self.eval_pair(th, &n.on_true, &n.on_false)?;
        if cond.len() != t.len() {
            return Err(lane_mismatch());
        }
        Ok(cond.iter().zip(t.iter().zip(&f)).map(|(c, (x, y))| if truthy(n.cond_num, *c) { *x } else { *y }).collect())
    }

    /// Lane `i` is `base + i * stride` in the ramp's type (wrapping for integers).
    fn ramp(&mut self, th: &mut Thread, n: &RampNode) -> R<Vec<u64>> {
        let base = self.eval_s(th, &n.base)?;
        let stride = self.eval_s(th, &n.stride)?;
        (0..n.lanes)
            .map(|lane| {
                let i = if n.num.is_float() {
                    float_from_int(n.num, i128::from(lane))
                } else {
                    norm(n.num, u64::from(lane))
                };
                let step = arith::binary(BinOp::Mul, n.num, i, stride)?;
                arith::binary(BinOp::Add, n.num, base, step)
            })
            .collect()
    }

    fn call_v(&mut self, th: &mut Thread, n: &CallNode) -> R<Vec<u64>> {
        let args = n.args.iter().map(|a| self.eval_v(th, a)).collect::<R<Vec<_>>>()?;
        let lanes = usize::from(n.lanes);
        if args.iter().any(|a| a.len() != lanes) {
            return Err(lane_mismatch());
        }
        Ok((0..lanes)
            .map(|lane| {
                let mut lane_args = [0u64; 2];
                for (slot, arg) in lane_args.iter_mut().zip(&args) {
                    *slot = arg[lane];
                }
                math::apply(n.func, n.arg_num, &lane_args[..args.len().min(2)])
            })
            .collect())
    }
}
