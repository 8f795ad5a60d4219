//! Compiling expressions and buffer accesses, with the typing checks the evaluator relies on:
//! binary and comparison operands have one type, conditions are scalars or match the lanes
//! of what they select, casts keep lanes, docs/buffers-and-lanes.md lanes for accesses (an N-lane last index
//! into an M-lane buffer gives N*M lanes; other indices are scalar integers).
//!
//! Constructs that cannot be evaluated but are well typed (unknown calls, strings, data
//! pointers used as values) compile to `CExpr::Fail`, reported only if executed.

use tirproof_ir::async_op::decode_token_op;
use tirproof_ir::buffer::Buffer;
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::{BinOp, Call, CallEffect, Expr};

use super::{ill, CResult, Compiler, VarSlot};
use crate::program::{
    Access, BinNode, BroadcastNode, CExpr, CallNode, CastNode, CmpNode, LayoutIns, LetNode, LoadNode, LogicNode,
    RampNode, SelectNode, SlotRef, TokenNode,
};
use tirproof_machine::arith::math::{MathFn, Signature};
use tirproof_machine::error::ExecError;
use tirproof_machine::value::{Num, ScalarValue};

/// The most dimensions an access may have (indices are gathered on the stack).
pub(crate) const MAX_DIMS: usize = 8;

fn num_of(dtype: DataType, what: &str) -> CResult<Num> {
    Num::of(dtype).ok_or_else(|| ExecError::Unsupported(format!("{what} of type {dtype}")))
}

fn fail(error: ExecError, lanes: u16) -> CExpr {
    CExpr::Fail { error: Box::new(error), lanes }
}

/// A constant of `lanes` lanes.
fn constant(bits: u64, lanes: u16) -> CExpr {
    if lanes == 1 {
        CExpr::Const(bits)
    } else {
        CExpr::ConstV(vec![bits; usize::from(lanes)].into_boxed_slice())
    }
}

/// Whether `op` is defined for operands of kind `num`.
fn op_allowed(op: BinOp, num: Num) -> bool {
    match num {
        Num::Bool => matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Min | BinOp::Max),
        n if n.is_float() => !op.is_bitwise(),
        _ => true,
    }
}

impl Compiler {
    pub(super) fn expr(&mut self, e: &Expr) -> CResult<CExpr> {
        match e {
            Expr::Int { value, dtype } => {
                Ok(constant(ScalarValue::Int(*value).to_bits(num_of(*dtype, "constant")?), dtype.lanes))
            }
            Expr::Float { value, dtype } => {
                Ok(constant(ScalarValue::Float(*value).to_bits(num_of(*dtype, "constant")?), dtype.lanes))
            }
            Expr::Str(s) => Ok(fail(ExecError::Unsupported(format!("string \"{s}\" used as a value")), 1)),
            Expr::Var(v) => match self.scope.get(v) {
                Some(VarSlot::Scalar(slot, _)) => Ok(CExpr::Slot(slot)),
                Some(VarSlot::Vector(slot, _, lanes)) => Ok(CExpr::SlotV { slot, lanes }),
                Some(VarSlot::Data(_)) => {
                    Ok(fail(ExecError::Unsupported(format!("data pointer `{v}` used as a value")), 1))
                }
                None => Err(ill(format!("variable `{v}` is used outside its scope"))),
            },
            Expr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            Expr::Cmp { op, lhs, rhs } => {
                let num = self.same_type(lhs, rhs, &op.to_string())?;
                Ok(CExpr::Cmp(Box::new(CmpNode {
                    op: *op,
                    num,
                    lanes: lhs.dtype().lanes,
                    lhs: self.expr(lhs)?,
                    rhs: self.expr(rhs)?,
                })))
            }
            Expr::Logic { op, lhs, rhs } => {
                let num = self.same_type(lhs, rhs, &op.to_string())?;
                if num != Num::Bool {
                    return Err(ill(format!("operands of `{op}` must be bool, not {}", lhs.dtype())));
                }
                Ok(CExpr::Logic(Box::new(LogicNode {
                    op: *op,
                    lanes: lhs.dtype().lanes,
                    lhs: self.expr(lhs)?,
                    rhs: self.expr(rhs)?,
                })))
            }
            Expr::Not(value) => {
                if !value.dtype().is_bool() {
                    return Err(ill(format!("operand of `not` must be bool, not {}", value.dtype())));
                }
                Ok(CExpr::Not { value: Box::new(self.expr(value)?), lanes: value.dtype().lanes })
            }
            Expr::Select { cond, on_true, on_false } => self.select(false, cond, on_true, on_false),
            Expr::IfThenElse { cond, on_true, on_false } => self.select(true, cond, on_true, on_false),
            Expr::Cast { dtype, value } => self.cast(*dtype, value),
            Expr::Ramp { base, stride, lanes } => self.ramp(base, stride, *lanes),
            Expr::Broadcast { value, lanes } => {
                let total = value
                    .dtype()
                    .lanes
                    .checked_mul(*lanes)
                    .filter(|l| *l > 0)
                    .ok_or_else(|| ill(format!("broadcast to {lanes} lanes of {}", value.dtype())))?;
                Ok(CExpr::Broadcast(Box::new(BroadcastNode { lanes: total, value: self.expr(value)? })))
            }
            Expr::Let { var, value, body } => self.let_expr(var, value, body),
            Expr::Load(load) => {
                let access = self.access(&load.buffer, &load.indices)?;
                let lanes = self.access_lanes(&load.buffer, &access)?;
                Ok(CExpr::Load(Box::new(LoadNode { access, lanes })))
            }
            Expr::Call(call) => self.call(call),
        }
    }

    /// Checks that two operands have one type and returns its kind.
    fn same_type(&mut self, lhs: &Expr, rhs: &Expr, op: &str) -> CResult<Num> {
        let (lt, rt) = (lhs.dtype(), rhs.dtype());
        if lt != rt {
            return Err(ill(format!("operands of `{op}` have different types: {lt} and {rt}")));
        }
        num_of(lt, "operand")
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr) -> CResult<CExpr> {
        let num = self.same_type(lhs, rhs, &op.to_string())?;
        if !op_allowed(op, num) {
            return Err(ill(format!("operator `{op}` is not defined for {}", lhs.dtype())));
        }
        Ok(CExpr::Bin(Box::new(BinNode {
            op,
            num,
            lanes: lhs.dtype().lanes,
            lhs: self.expr(lhs)?,
            rhs: self.expr(rhs)?,
        })))
    }

    fn select(&mut self, lazy: bool, cond: &Expr, on_true: &Expr, on_false: &Expr) -> CResult<CExpr> {
        let (tt, ft, ct) = (on_true.dtype(), on_false.dtype(), cond.dtype());
        if tt != ft {
            return Err(ill(format!("arms of a select have different types: {tt} and {ft}")));
        }
        num_of(tt, "select")?;
        if ct.lanes != 1 && ct.lanes != tt.lanes {
            return Err(ill(format!("a {ct} condition cannot select between {tt} values")));
        }
        Ok(CExpr::Select(Box::new(SelectNode {
            lazy,
            lanes: tt.lanes,
            cond_num: num_of(ct, "condition")?,
            cond: self.expr(cond)?,
            on_true: self.expr(on_true)?,
            on_false: self.expr(on_false)?,
        })))
    }

    fn cast(&mut self, dtype: DataType, value: &Expr) -> CResult<CExpr> {
        let from = value.dtype();
        if from.lanes != dtype.lanes {
            return Err(ill(format!("cast from {from} to {dtype} changes the number of lanes")));
        }
        if from.is_handle() || dtype.is_handle() {
            return Ok(fail(ExecError::Unsupported(format!("pointer cast from {from} to {dtype}")), dtype.lanes));
        }
        Ok(CExpr::Cast(Box::new(CastNode {
            from: num_of(from, "cast operand")?,
            to: num_of(dtype, "cast")?,
            lanes: dtype.lanes,
            value: self.expr(value)?,
        })))
    }

    fn ramp(&mut self, base: &Expr, stride: &Expr, lanes: u16) -> CResult<CExpr> {
        let num = self.same_type(base, stride, "ramp")?;
        if base.dtype().lanes != 1 || lanes == 0 || num == Num::Bool {
            return Err(ill(format!("ramp of {} with {lanes} lanes", base.dtype())));
        }
        Ok(CExpr::Ramp(Box::new(RampNode { num, lanes, base: self.expr(base)?, stride: self.expr(stride)? })))
    }

    fn let_expr(&mut self, var: &tirproof_ir::var::Var, value: &Expr, body: &Expr) -> CResult<CExpr> {
        if var.dtype() != value.dtype() {
            return Err(ill(format!("`{var}` of type {} is bound to a value of type {}", var.dtype(), value.dtype())));
        }
        let value = self.expr(value)?;
        let mark = self.scope.mark();
        let slot = match self.bind_var(var)? {
            VarSlot::Scalar(s, _) => SlotRef::Scalar(s),
            VarSlot::Vector(s, _, _) => SlotRef::Vector(s),
            VarSlot::Data(_) => return Err(ExecError::Unsupported(format!("let-bound pointer `{var}`"))),
        };
        let body = self.expr(body);
        self.scope.restore(mark);
        Ok(CExpr::Let(Box::new(LetNode { slot, value, body: body? })))
    }

    fn call(&mut self, call: &Call) -> CResult<CExpr> {
        let lanes = call.dtype.lanes;
        let unsupported = |why: String| Ok(fail(ExecError::Unsupported(why), lanes));
        match decode_token_op(call) {
            Some(Ok((op, queue))) => {
                let (queue, queue_num) = self.int_expr(queue, "an async queue")?;
                let line = self.line;
                return Ok(CExpr::Token(Box::new(TokenNode { op, queue, queue_num, line })));
            }
            Some(Err(why)) => return Err(ill(why)),
            None => {}
        }
        let func = match MathFn::lookup(&call.name) {
            Some(f) if call.effect == CallEffect::Pure && !call.external => f,
            _ => return unsupported(format!("call to `{}` ({} effect)", call.name, call.effect)),
        };
        if call.args.len() != func.arity() {
            return unsupported(format!("`{}` with {} arguments", call.name, call.args.len()));
        }
        let arg_type = call.args[0].dtype();
        if call.args.iter().any(|a| a.dtype() != arg_type) || arg_type.lanes != lanes {
            return unsupported(format!("`{}` with arguments of mixed types", call.name));
        }
        let (Some(arg_num), Some(ret_num)) = (Num::of(arg_type), Num::of(call.dtype)) else {
            return unsupported(format!("`{}` on {arg_type}", call.name));
        };
        let ok = match func.signature() {
            Signature::FloatUnary | Signature::FloatBinary => arg_num.is_float() && ret_num == arg_num,
            Signature::FloatTest => arg_num.is_float() && ret_num == Num::Bool,
            Signature::AnyUnary => arg_num != Num::Bool && ret_num == arg_num,
            Signature::IntUnary => arg_num.is_integer() && ret_num == arg_num,
        };
        if !ok {
            return unsupported(format!("`{}` from {arg_type} to {}", call.name, call.dtype));
        }
        let args = call.args.iter().map(|a| self.expr(a)).collect::<CResult<Vec<_>>>()?;
        Ok(CExpr::Call(Box::new(CallNode { func, arg_num, lanes, args })))
    }

    /// A scalar integer expression (extents, loop bounds, queue ids, counts).
    pub(super) fn int_expr(&mut self, e: &Expr, what: &str) -> CResult<(CExpr, Num)> {
        let dtype = e.dtype();
        match Num::of(dtype) {
            Some(num) if dtype.lanes == 1 && (num.is_integer() || num == Num::Bool) => Ok((self.expr(e)?, num)),
            _ => Err(ill(format!("{what} must be a scalar integer, not {dtype}"))),
        }
    }

    /// Compiles the indices of an access to `buffer`.
    pub(super) fn access(&mut self, buffer: &Buffer, indices: &[Expr]) -> CResult<Access> {
        let buf = self.buf_slot(buffer)?;
        let dims = buffer.shape().len();
        if indices.len() != dims {
            return Err(ill(format!(
                "`{buffer}` has {dims} dimensions but is accessed with {} indices",
                indices.len()
            )));
        }
        if dims > MAX_DIMS {
            return Err(ExecError::Unsupported(format!("`{buffer}` has more than {MAX_DIMS} dimensions")));
        }
        let mut compiled = Vec::with_capacity(dims);
        let mut nums = Vec::with_capacity(dims);
        for (k, index) in indices.iter().enumerate() {
            let dtype = index.dtype();
            let num = Num::of(dtype).filter(|n| n.is_integer());
            match num {
                Some(n) if dtype.lanes == 1 || k + 1 == dims => nums.push(n),
                _ => return Err(ill(format!("index {k} of `{buffer}` has type {dtype}"))),
            }
            compiled.push(self.expr(index)?);
        }
        let var_index = match (&compiled[..], &nums[..]) {
            ([CExpr::Slot(slot)], [num]) => Some((*slot, *num)),
            _ => None,
        };
        Ok(Access {
            buf,
            index_lanes: indices.last().map_or(1, |i| i.dtype().lanes),
            indices: compiled,
            index_nums: nums,
            var_index,
        })
    }

    /// N * M lanes of an access.
    pub(super) fn access_lanes(&self, buffer: &Buffer, access: &Access) -> CResult<u16> {
        buffer
            .dtype()
            .lanes
            .checked_mul(access.index_lanes)
            .ok_or_else(|| ill(format!("access to `{buffer}` has too many lanes")))
    }

    /// The instructions that evaluate `buffer`'s layout over its data variable's storage.
    pub(super) fn layout_ins(&mut self, buffer: &Buffer) -> CResult<LayoutIns> {
        let buf = self.buf_slot(buffer)?;
        let data = match self.scope.get(buffer.data()) {
            Some(VarSlot::Data(slot)) => slot,
            _ => {
                return Err(ill(format!(
                    "buffer `{buffer}` uses data variable `{}`, which is not defined here",
                    buffer.data()
                )))
            }
        };
        let what = format!("the shape of `{buffer}`");
        let shape = buffer.shape().iter().map(|e| Ok(self.int_expr(e, &what)?.0)).collect::<CResult<_>>()?;
        let strides = buffer.strides().iter().map(|e| Ok(self.int_expr(e, &what)?.0)).collect::<CResult<Vec<_>>>()?;
        if !strides.is_empty() && strides.len() != buffer.shape().len() {
            return Err(ill(format!(
                "`{buffer}` has {} strides for {} dimensions",
                strides.len(),
                buffer.shape().len()
            )));
        }
        let (elem_offset, _) = self.int_expr(buffer.elem_offset(), &what)?;
        Ok(LayoutIns { buf, data, shape, strides, elem_offset })
    }
}
