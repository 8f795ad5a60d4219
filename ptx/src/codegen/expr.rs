//! Expressions to instructions: each TIR expression becomes one operand per lane.
//!
//! Invariants: integer operations wrap in the expression's width as TIR's do; `//` and `%`
//! round toward negative infinity (a shift or a mask for a positive power of two, else a
//! truncating division corrected by the remainder's sign); float operations round to nearest
//! even once each; float `min`/`max` are `a < b ? a : b` as in the interpreter (NaN picks the
//! second operand), not PTX's `min`, which differs on NaN and on signed zeros.

use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::{BinOp, BufferLoad, CmpOp, Expr, LogicOp};

use super::{wide, Gen, R};
use crate::module::{Cmp, FloatOp, IntOp, Op, Operand, Reg, RegClass, Rounding, Ty};

impl Gen {
    /// The lanes of `expr`.
    pub(super) fn expr(&mut self, expr: &Expr) -> R<Vec<Operand>> {
        let dtype = expr.dtype();
        let lanes = usize::from(dtype.lanes);
        match expr {
            Expr::Int { value, .. } => {
                let one = self.int_const(dtype, *value)?;
                Ok(vec![one; lanes])
            }
            Expr::Float { value, .. } => {
                let one = self.float_const(dtype, *value)?;
                Ok(vec![one; lanes])
            }
            Expr::Var(var) => self
                .vars
                .get(&var.id())
                .cloned()
                .ok_or_else(|| self.error(format!("the variable `{}`", var.name()), "it is not bound here")),
            Expr::Binary { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
                let elem = lhs.dtype().element();
                a.into_iter().zip(b).map(|(a, b)| self.binary(*op, elem, a, b)).collect()
            }
            Expr::Cmp { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
                let elem = lhs.dtype().element();
                a.into_iter().zip(b).map(|(a, b)| self.compare(*op, elem, a, b)).collect()
            }
            Expr::Logic { op, lhs, rhs } => {
                let int_op = match op {
                    LogicOp::And => IntOp::And,
                    LogicOp::Or => IntOp::Or,
                };
                let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
                Ok(a.into_iter().zip(b).map(|(a, b)| self.int_op(int_op, Ty::Pred, a, b)).collect())
            }
            Expr::Not(value) => {
                let lanes = self.expr(value)?;
                Ok(lanes
                    .into_iter()
                    .map(|a| {
                        let dst = self.reg(RegClass::Pred);
                        self.emit(Op::Not { ty: Ty::Pred, dst, a });
                        Operand::Reg(dst)
                    })
                    .collect())
            }
            Expr::Select { cond, on_true, on_false } => {
                let (c, a, b) = (self.expr(cond)?, self.expr(on_true)?, self.expr(on_false)?);
                let ty = self.scalar_ty(dtype, || "a select".into())?;
                let c = if c.len() == 1 { vec![c[..1].to_vec(); lanes].concat() } else { c };
                let picks = c.into_iter().zip(a).zip(b);
                picks.map(|((c, a), b)| self.select(ty, c, a, b)).collect()
            }
            Expr::IfThenElse { cond, on_true, on_false } => self.if_then_else(cond, on_true, on_false),
            Expr::Cast { dtype, value } => {
                let from = value.dtype().element();
                let lanes = self.expr(value)?;
                lanes.into_iter().map(|v| self.cast(from, dtype.element(), v)).collect()
            }
            Expr::Ramp { base, stride, lanes } => {
                let (base, stride) = (self.expr(base)?, self.expr(stride)?);
                let (Some(base), Some(stride)) = (base.first().cloned(), stride.first().cloned()) else {
                    return Err(self.error("a ramp", "its base or stride has no value"));
                };
                let elem = dtype.element();
                let mut out = vec![base.clone()];
                for k in 1..i64::from(*lanes) {
                    let step = self.binary(BinOp::Mul, elem, stride.clone(), Operand::Imm(k))?;
                    out.push(self.binary(BinOp::Add, elem, base.clone(), step)?);
                }
                Ok(out)
            }
            Expr::Broadcast { value, lanes } => {
                let one = self.expr(value)?;
                Ok(vec![one; usize::from(*lanes)].concat())
            }
            Expr::Let { var, value, body } => {
                let bound = self.expr(value)?;
                self.vars.insert(var.id(), bound);
                let result = self.expr(body);
                self.vars.remove(&var.id());
                result
            }
            Expr::Load(load) => self.load(load),
            Expr::Call(call) => self.call(call, dtype),
            Expr::Str(s) => Err(self.error(format!("the string \"{s}\""), "strings have no value in PTX")),
        }
    }

    /// The lanes of a load from a buffer.
    fn load(&mut self, load: &BufferLoad) -> R<Vec<Operand>> {
        let access = self.access(&load.buffer, &load.indices)?;
        let mut out = Vec::new();
        for addr in access.addresses {
            out.extend(self.ld(access.space, access.elem, addr)?.into_iter().map(Operand::Reg));
        }
        Ok(out)
    }

    /// An integer immediate of `dtype`; bools become predicates.
    fn int_const(&mut self, dtype: DataType, value: i64) -> R<Operand> {
        let ty = self.scalar_ty(dtype, || format!("the constant {value}"))?;
        if ty == Ty::Pred {
            let bits = self.in_reg(Ty::S32, Operand::Imm(value));
            let dst = self.reg(RegClass::Pred);
            self.emit(Op::Setp { cmp: Cmp::Ne, ty: Ty::S32, dst, a: bits.into(), b: Operand::Imm(0) });
            return Ok(Operand::Reg(dst));
        }
        if ty.is_float() {
            return self.float_const(dtype, value as f64);
        }
        Ok(Operand::Imm(value))
    }

    /// A float immediate of `dtype`, exactly as the interpreter rounds it.
    fn float_const(&mut self, dtype: DataType, value: f64) -> R<Operand> {
        match self.scalar_ty(dtype, || format!("the constant {value}"))? {
            Ty::F32 => Ok(Operand::F32((value as f32).to_bits())),
            Ty::F64 => Ok(Operand::F64(value.to_bits())),
            Ty::F16 => {
                // PTX has no f16 immediates: the bits go through a 16-bit register.
                let bits = half::f16::from_f64(value).to_bits();
                Ok(Operand::Reg(self.in_reg(Ty::B16, Operand::Imm(i64::from(bits)))))
            }
            _ => Err(self.error(format!("the constant {value}"), format!("{dtype} is not a float type"))),
        }
    }

    /// `a op b` on one lane of type `elem`.
    pub(super) fn binary(&mut self, op: BinOp, elem: DataType, a: Operand, b: Operand) -> R<Operand> {
        let ty = self.scalar_ty(elem, || format!("the operator `{op}`"))?;
        if ty.bits() == 8 {
            // In the 16-bit twin, then back to 8 bits (every operator wraps the same way
            // modulo 256, and the 16-bit result of `-128 / -1` narrows to -128).
            let twin = DataType { bits: 16, ..elem.element() };
            let result = self.binary(op, twin, a, b)?;
            return Ok(self.narrow(ty, result));
        }
        if ty.is_float() {
            return self.float_binary(op, ty, a, b);
        }
        if ty == Ty::Pred {
            let int_op = match op {
                BinOp::BitAnd => IntOp::And,
                BinOp::BitOr => IntOp::Or,
                BinOp::BitXor => IntOp::Xor,
                _ => return Err(self.error(format!("the operator `{op}` on bool"), "only &, | and ^ apply to bools")),
            };
            return Ok(self.int_op(int_op, ty, a, b));
        }
        let int_op = match op {
            BinOp::Add => IntOp::Add,
            BinOp::Sub => IntOp::Sub,
            BinOp::Mul => IntOp::MulLo,
            BinOp::Div | BinOp::TruncDiv => IntOp::Div,
            BinOp::TruncMod => IntOp::Rem,
            BinOp::FloorDiv | BinOp::FloorMod if !ty.is_signed() => {
                if op == BinOp::FloorDiv {
                    IntOp::Div
                } else {
                    IntOp::Rem
                }
            }
            BinOp::FloorDiv | BinOp::FloorMod => return Ok(self.floor_div_mod(op == BinOp::FloorDiv, ty, a, b)),
            BinOp::Min => IntOp::Min,
            BinOp::Max => IntOp::Max,
            BinOp::BitAnd => IntOp::And,
            BinOp::BitOr => IntOp::Or,
            BinOp::BitXor => IntOp::Xor,
            BinOp::Shl | BinOp::Shr => return Ok(self.shift(op == BinOp::Shl, ty, a, b)),
        };
        Ok(self.int_op(int_op, ty, a, b))
    }

    /// `dst = a op b` into a fresh register (the first operand in a register, as PTX wants).
    pub(super) fn int_op(&mut self, op: IntOp, ty: Ty, a: Operand, b: Operand) -> Operand {
        let a = self.in_reg(ty, a);
        let dst = self.reg_of(ty);
        self.emit(Op::Int { op, ty, dst, a: a.into(), b });
        Operand::Reg(dst)
    }

    /// Shifts: PTX takes the amount as `.u32` whatever the value's width.
    fn shift(&mut self, left: bool, ty: Ty, a: Operand, b: Operand) -> Operand {
        let amount = match b {
            Operand::Reg(r) if ty.bits() != 32 => {
                let dst = self.reg(RegClass::B32);
                self.emit(Op::Cvt { dst_ty: Ty::U32, src_ty: ty, rounding: None, dst, src: r.into() });
                Operand::Reg(dst)
            }
            other => other,
        };
        self.int_op(if left { IntOp::Shl } else { IntOp::Shr }, ty, a, amount)
    }

    /// Signed `a // b` or `a % b`, rounding toward negative infinity.
    fn floor_div_mod(&mut self, div: bool, ty: Ty, a: Operand, b: Operand) -> Operand {
        if let Operand::Imm(d) = b {
            if d > 0 && d.count_ones() == 1 {
                // Two's complement: an arithmetic shift is floor division by 2^k, and the low
                // bits are the non-negative remainder.
                return if div {
                    self.int_op(IntOp::Shr, ty, a, Operand::Imm(i64::from(d.trailing_zeros())))
                } else {
                    self.int_op(IntOp::And, ty, a, Operand::Imm(d - 1))
                };
            }
        }
        let q = self.int_op(IntOp::Div, ty, a.clone(), b.clone());
        let r = self.int_op(IntOp::Rem, ty, a, b.clone());
        // The truncated result is one too high (or the remainder has the wrong sign) when the
        // remainder is non-zero and its sign differs from the divisor's.
        let nonzero = self.setp(Cmp::Ne, ty, r.clone(), Operand::Imm(0));
        let signs = self.int_op(IntOp::Xor, ty, r.clone(), b.clone());
        let differ = self.setp(Cmp::Lt, ty, signs, Operand::Imm(0));
        let fix = self.int_op(IntOp::And, Ty::Pred, nonzero, differ);
        let Operand::Reg(fix) = fix else { return q };
        let adjust = self.reg_of(ty);
        let (on, base) = if div { (Operand::Imm(-1), q) } else { (b, r) };
        self.emit(Op::Selp { ty, dst: adjust, a: on, b: Operand::Imm(0), pred: fix });
        self.int_op(IntOp::Add, ty, base, adjust.into())
    }

    fn float_binary(&mut self, op: BinOp, ty: Ty, a: Operand, b: Operand) -> R<Operand> {
        let float_op = match op {
            BinOp::Add => FloatOp::Add,
            BinOp::Sub => FloatOp::Sub,
            BinOp::Mul => FloatOp::Mul,
            BinOp::Div if ty != Ty::F16 => FloatOp::Div,
            BinOp::Min | BinOp::Max => {
                let cmp = if op == BinOp::Min { Cmp::Lt } else { Cmp::Gt };
                let pick = self.setp(cmp, ty, a.clone(), b.clone());
                return self.select(ty, pick, a, b);
            }
            _ => return Err(self.error(format!("the operator `{op}` on {ty}"), "PTX has no exact lowering for it")),
        };
        let a = self.in_reg(ty, a);
        let dst = self.reg_of(ty);
        self.emit(Op::Float { op: float_op, ty, dst, a: a.into(), b });
        Ok(Operand::Reg(dst))
    }

    /// A predicate register holding `a cmp b`.
    /// An 8-bit `ty` value computed in its 16-bit register: its low 8 bits, extended again
    /// (`cvt.s16.s8` / `cvt.u16.u8`).
    pub(super) fn narrow(&mut self, ty: Ty, value: Operand) -> Operand {
        let src = self.in_reg(wide(ty), value);
        let dst = self.reg_of(wide(ty));
        self.emit(Op::Cvt { dst_ty: wide(ty), src_ty: ty, rounding: None, dst, src: src.into() });
        Operand::Reg(dst)
    }

    pub(super) fn setp(&mut self, cmp: Cmp, ty: Ty, a: Operand, b: Operand) -> Operand {
        Operand::Reg(self.setp_reg(cmp, ty, a, b))
    }

    /// `setp` into a fresh predicate register, returned as that register.
    pub(super) fn setp_reg(&mut self, cmp: Cmp, ty: Ty, a: Operand, b: Operand) -> Reg {
        // 8-bit values are compared in their 16-bit registers (PTX has no 8-bit setp).
        let ty = wide(ty);
        let a = self.in_reg(ty, a);
        let dst = self.reg(RegClass::Pred);
        self.emit(Op::Setp { cmp, ty, dst, a: a.into(), b });
        dst
    }

    fn compare(&mut self, op: CmpOp, elem: DataType, a: Operand, b: Operand) -> R<Operand> {
        let ty = self.scalar_ty(elem, || format!("the comparison `{op}`"))?;
        let cmp = match (op, ty.is_float(), ty.is_signed()) {
            (_, _, _) if ty == Ty::Pred => {
                return Err(self.error(format!("the comparison `{op}` of bools"), "compare them as integers"))
            }
            (CmpOp::Eq, _, _) => Cmp::Eq,
            (CmpOp::Ne, true, _) => Cmp::Neu,
            (CmpOp::Ne, false, _) => Cmp::Ne,
            (CmpOp::Lt, false, false) => Cmp::Lo,
            (CmpOp::Le, false, false) => Cmp::Ls,
            (CmpOp::Gt, false, false) => Cmp::Hi,
            (CmpOp::Ge, false, false) => Cmp::Hs,
            (CmpOp::Lt, _, _) => Cmp::Lt,
            (CmpOp::Le, _, _) => Cmp::Le,
            (CmpOp::Gt, _, _) => Cmp::Gt,
            (CmpOp::Ge, _, _) => Cmp::Ge,
        };
        Ok(self.setp(cmp, ty, a, b))
    }

    /// `c ? a : b` for one lane; predicates have no `selp`, so they combine logically.
    fn select(&mut self, ty: Ty, c: Operand, a: Operand, b: Operand) -> R<Operand> {
        let Operand::Reg(pred) = c else {
            return Err(self.error("a select", "its condition is not a predicate register"));
        };
        if ty == Ty::Pred {
            let when_true = self.int_op(IntOp::And, Ty::Pred, c.clone(), a);
            let not_c = self.reg(RegClass::Pred);
            self.emit(Op::Not { ty: Ty::Pred, dst: not_c, a: c });
            let when_false = self.int_op(IntOp::And, Ty::Pred, not_c.into(), b);
            return Ok(self.int_op(IntOp::Or, Ty::Pred, when_true, when_false));
        }
        let dst = self.reg_of(ty);
        let sel_ty = if ty == Ty::F16 { Ty::B16 } else { wide(ty) };
        self.emit(Op::Selp { ty: sel_ty, dst, a, b, pred });
        Ok(Operand::Reg(dst))
    }

    /// `T.if_then_else`: only the taken arm runs (its loads may be out of bounds otherwise).
    fn if_then_else(&mut self, cond: &Expr, on_true: &Expr, on_false: &Expr) -> R<Vec<Operand>> {
        let dtype = on_true.dtype();
        let ty = self.scalar_ty(dtype, || "T.if_then_else".into())?;
        if cond.dtype().lanes != 1 || ty == Ty::Pred {
            return Err(self.error("T.if_then_else", "only a scalar condition choosing non-bool values is supported"));
        }
        let Some(Operand::Reg(pred)) = self.expr(cond)?.first().cloned() else {
            return Err(self.error("T.if_then_else", "its condition is not a predicate register"));
        };
        let results: Vec<Reg> = (0..dtype.lanes).map(|_| self.reg_of(ty)).collect();
        let (otherwise, end) = (self.label(), self.label());
        self.emit_guarded(pred, true, Op::Bra { target: otherwise });
        self.assign(ty, &results, on_true)?;
        self.emit(Op::Bra { target: end });
        self.place(otherwise);
        self.assign(ty, &results, on_false)?;
        self.place(end);
        Ok(results.into_iter().map(Operand::Reg).collect())
    }

    /// Evaluates `expr` into the given registers.
    fn assign(&mut self, ty: Ty, dst: &[Reg], expr: &Expr) -> R<()> {
        let mov_ty = if ty == Ty::F16 { Ty::B16 } else { wide(ty) };
        for (dst, src) in dst.iter().zip(self.expr(expr)?) {
            self.emit(Op::Mov { ty: mov_ty, dst: *dst, src });
        }
        Ok(())
    }

    /// `T.Cast` of one lane, with the interpreter's rounding: to float rounds to nearest even,
    /// to an integer from a float truncates, between integers wraps or extends.
    pub(super) fn cast(&mut self, from: DataType, to: DataType, value: Operand) -> R<Operand> {
        let what = || format!("the cast from {from} to {to}");
        let (src_ty, dst_ty) = (self.scalar_ty(from, what)?, self.scalar_ty(to, what)?);
        if src_ty == dst_ty {
            return Ok(value);
        }
        if dst_ty == Ty::Pred {
            let (cmp, zero) =
                if src_ty.is_float() { (Cmp::Neu, self.float_const(from, 0.0)?) } else { (Cmp::Ne, Operand::Imm(0)) };
            return Ok(self.setp(cmp, src_ty, value, zero));
        }
        if src_ty == Ty::Pred {
            let (one, zero) = if dst_ty.is_float() {
                (self.float_const(to, 1.0)?, self.float_const(to, 0.0)?)
            } else {
                (Operand::Imm(1), Operand::Imm(0))
            };
            return self.select(dst_ty, value, one, zero);
        }
        if src_ty.bits() == 8 || dst_ty.bits() == 8 {
            // Through the 16-bit twins; a result narrower than 16 bits is narrowed after.
            let twin = |d: DataType| if d.bits == 8 { DataType { bits: 16, ..d.element() } } else { d };
            let converted = self.cast(twin(from), twin(to), value)?;
            return Ok(if dst_ty.bits() == 8 { self.narrow(dst_ty, converted) } else { converted });
        }
        let rounding = match (src_ty.is_float(), dst_ty.is_float()) {
            (true, false) => Some(Rounding::Rzi),
            (false, true) => Some(Rounding::Rn),
            (true, true) if dst_ty.bits() < src_ty.bits() => Some(Rounding::Rn),
            _ => None,
        };
        let src = match value {
            Operand::Reg(_) => value,
            other => self.in_reg(src_ty, other).into(),
        };
        let dst = self.reg_of(dst_ty);
        self.emit(Op::Cvt { dst_ty, src_ty, rounding, dst, src });
        Ok(Operand::Reg(dst))
    }
}
