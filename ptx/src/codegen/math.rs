//! Calls to math intrinsics. Only `T.exp` of float32 (and of float16, through float32, as the
//! interpreter computes it) has a lowering: PTX's own `ex2.approx` is approximate and differs
//! between GPUs, so `exp` is the fixed float64 sequence of `tirproof_machine::arith::exp`,
//! emitted instruction for instruction with its constants, which the interpreter computes too.
//! Results then agree bit for bit on the emulator, and on a GPU, which rounds each of these
//! IEEE operations the same way.

use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::Call;
use tirproof_machine::arith::exp::{EXP_BIAS, EXP_MAX_ARG, EXP_MIN_ARG, EXP_TAYLOR, LN2_HI, LN2_LO, LOG2_E};
use tirproof_machine::arith::math::MathFn;

use super::{Gen, R};
use crate::module::{Cmp, FloatOp, IntOp, Op, Operand, RegClass, Rounding, Ty};

impl Gen {
    /// The lanes of a call.
    pub(super) fn call(&mut self, call: &Call, dtype: DataType) -> R<Vec<Operand>> {
        let what = || format!("the call `{}`", call.name);
        let exp = !call.external && MathFn::lookup(&call.name) == Some(MathFn::Exp);
        let ty = self.scalar_ty(dtype, what)?;
        if !exp || !matches!(ty, Ty::F32 | Ty::F16) || call.args.len() != 1 {
            let why = "of the calls, only `T.exp` of float32 or float16 has a PTX lowering";
            return Err(self.error(what(), why));
        }
        let lanes = self.expr(&call.args[0])?;
        lanes
            .into_iter()
            .map(|x| {
                if ty == Ty::F32 {
                    return Ok(self.exp_f32(x));
                }
                let wide = self.cast(DataType::FLOAT16, DataType::FLOAT32, x)?;
                let result = self.exp_f32(wide);
                self.cast(DataType::FLOAT32, DataType::FLOAT16, result)
            })
            .collect()
    }

    /// `exp` of one float32 lane, as `tirproof_machine::arith::exp::exp_f32` computes it.
    fn exp_f32(&mut self, x: Operand) -> Operand {
        let f64_op = |value: f64| Operand::F64(value.to_bits());
        let x = Operand::Reg(self.in_reg(Ty::F32, x));
        let d = self.reg(RegClass::F64);
        self.emit(Op::Cvt { dst_ty: Ty::F64, src_ty: Ty::F32, rounding: None, dst: d, src: x.clone() });
        // Clamp to [EXP_MIN_ARG, EXP_MAX_ARG] (a NaN is handled at the end).
        let mut clamped = Operand::Reg(d);
        for (cmp, bound) in [(Cmp::Lt, EXP_MIN_ARG), (Cmp::Gt, EXP_MAX_ARG)] {
            let beyond = self.setp_reg(cmp, Ty::F64, clamped.clone(), f64_op(bound));
            let dst = self.reg(RegClass::F64);
            self.emit(Op::Selp { ty: Ty::F64, dst, a: f64_op(bound), b: clamped, pred: beyond });
            clamped = Operand::Reg(dst);
        }
        let t = self.reg(RegClass::F64);
        self.emit(Op::Float { op: FloatOp::Mul, ty: Ty::F64, dst: t, a: clamped.clone(), b: f64_op(LOG2_E) });
        let n = self.reg(RegClass::F64);
        let rounding = Some(Rounding::Rni);
        self.emit(Op::Cvt { dst_ty: Ty::F64, src_ty: Ty::F64, rounding, dst: n, src: Operand::Reg(t) });
        let mut r = clamped;
        for part in [LN2_HI, LN2_LO] {
            let dst = self.reg(RegClass::F64);
            self.emit(Op::Fma { ty: Ty::F64, dst, a: Operand::Reg(n), b: f64_op(-part), c: r });
            r = Operand::Reg(dst);
        }
        let mut p = Operand::Reg(self.in_reg(Ty::F64, f64_op(EXP_TAYLOR[0])));
        for c in &EXP_TAYLOR[1..] {
            let dst = self.reg(RegClass::F64);
            self.emit(Op::Fma { ty: Ty::F64, dst, a: p, b: r.clone(), c: f64_op(*c) });
            p = Operand::Reg(dst);
        }
        // 2^n: the biased exponent shifted into place, then the bits read as a float64.
        let n_int = self.reg(RegClass::B32);
        let rounding = Some(Rounding::Rzi);
        self.emit(Op::Cvt { dst_ty: Ty::S32, src_ty: Ty::F64, rounding, dst: n_int, src: Operand::Reg(n) });
        let biased = self.int_op(IntOp::Add, Ty::S32, Operand::Reg(n_int), Operand::Imm(i64::from(EXP_BIAS)));
        let wide = self.reg(RegClass::B64);
        self.emit(Op::Cvt { dst_ty: Ty::U64, src_ty: Ty::U32, rounding: None, dst: wide, src: biased });
        let bits = self.int_op(IntOp::Shl, Ty::B64, Operand::Reg(wide), Operand::Imm(52));
        let scale = self.reg(RegClass::F64);
        self.emit(Op::Mov { ty: Ty::B64, dst: scale, src: bits });
        let product = self.reg(RegClass::F64);
        self.emit(Op::Float { op: FloatOp::Mul, ty: Ty::F64, dst: product, a: p, b: Operand::Reg(scale) });
        let result = self.reg(RegClass::F32);
        let rounding = Some(Rounding::Rn);
        self.emit(Op::Cvt { dst_ty: Ty::F32, src_ty: Ty::F64, rounding, dst: result, src: Operand::Reg(product) });
        // A NaN returns itself (`x != x` holds only for a NaN).
        let nan = self.setp_reg(Cmp::Neu, Ty::F32, x.clone(), x.clone());
        let dst = self.reg(RegClass::F32);
        self.emit(Op::Selp { ty: Ty::F32, dst, a: x, b: Operand::Reg(result), pred: nan });
        Operand::Reg(dst)
    }
}
