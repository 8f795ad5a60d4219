//! Lowering of expressions: names, literals, operators, buffer loads and attribute access.
//! Calls (`T.xxx(...)`) are in `call.rs`.
//!
//! Rules: an unknown name is an error "undefined name"; a buffer is not a value (index it or
//! take `.data`); unary minus on a literal folds into the literal, on anything else it is
//! `0 - x` in `x`'s type; `~x` is `x ^ -1`; `**` is the `pow` intrinsic. Operands meet under
//! the literal typing rule of `literal.rs`. Invariant: recursion follows the surface tree,
//! whose height the grammar capped.

use tirproof_ir::buffer::Buffer;
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::{BinOp, Call, CallEffect, CmpOp, Expr, LogicOp};
use tirproof_ir::span::Span;

use super::ast::{ArithOp, PExpr, PExprKind, PIndex, UnaryOp};
use super::literal::{literal, Lit};
use super::lower::Lowerer;
use super::scope::{is_scalar_buffer, scalar_indices, Binding};

/// A zero (or other small constant) of `dtype`, broadcast for vectors.
pub(super) fn constant_like(value: i64, dtype: DataType) -> Expr {
    let elem = dtype.element();
    let scalar = if elem.is_float() { Expr::float(value as f64, elem) } else { Expr::int_of(value, elem) };
    if dtype.lanes > 1 {
        Expr::broadcast(scalar, dtype.lanes)
    } else {
        scalar
    }
}

/// TVMScript's min/extent rule for `(a, b)` bounds, mirroring the printer: two int
/// immediates give `b - a` folded; `b` written as `a + x` gives `x`; otherwise `b - a`.
pub(super) fn min_extent(min: Expr, end: Expr) -> (Expr, Expr) {
    if let (Expr::Int { value: a, .. }, Expr::Int { value: b, dtype }) = (&min, &end) {
        if let Some(diff) = b.checked_sub(*a) {
            let extent = Expr::int_of(diff, *dtype);
            return (min, extent);
        }
    }
    if let Expr::Binary { op: BinOp::Add, lhs, rhs } = &end {
        if **lhs == min {
            let extent = (**rhs).clone();
            return (min, extent);
        }
    }
    let extent = Expr::binary(BinOp::Sub, end, min.clone());
    (min, extent)
}

/// `-x`, `+x`, `~x`, `not x` on a lowered operand.
fn apply_unary(op: UnaryOp, value: Expr) -> Expr {
    match op {
        UnaryOp::Pos => value,
        UnaryOp::Neg => {
            let zero = constant_like(0, value.dtype());
            Expr::binary(BinOp::Sub, zero, value)
        }
        UnaryOp::Invert => {
            let ones = constant_like(-1, value.dtype());
            Expr::binary(BinOp::BitXor, value, ones)
        }
        UnaryOp::Not => Expr::logical_not(value),
    }
}

/// An arithmetic node; `**` is the `pow` intrinsic.
fn arith_node(op: ArithOp, (l, r): (Expr, Expr)) -> Expr {
    match op {
        ArithOp::Op(op) => Expr::binary(op, l, r),
        ArithOp::Pow => Expr::Call(Call {
            name: "pow".to_string(),
            dtype: l.dtype(),
            args: vec![l, r],
            effect: CallEffect::Pure,
            external: false,
        }),
    }
}

impl Lowerer {
    /// Lowers one expression. Nested expressions recurse through here, so this only
    /// dispatches: each arm is a call whose result is the return value, keeping the frame
    /// small (see `MAX_NESTING`).
    pub fn expr(&mut self, e: &PExpr) -> Expr {
        match &e.kind {
            PExprKind::Name(name) => self.name_value(name, e.span),
            PExprKind::Attr { value, name } => self.attr_value(value, name, e),
            PExprKind::Call { .. } => self.call(e),
            PExprKind::Subscript { value, items } => self.load(value, items),
            PExprKind::Unary { op, operand } => self.unary(*op, operand, e),
            PExprKind::Arith { op, lhs, rhs } => self.arith(*op, lhs, rhs),
            PExprKind::Cmp { op, lhs, rhs } => self.comparison(*op, lhs, rhs),
            PExprKind::Logic { op, lhs, rhs } => self.logic(*op, lhs, rhs),
            _ => self.leaf(e),
        }
    }

    /// Literals, and the containers that are not values.
    fn leaf(&mut self, e: &PExpr) -> Expr {
        match &e.kind {
            PExprKind::Int(v) => self.int_literal(i128::from(*v), e.span),
            PExprKind::Float(v) => Expr::float(*v, DataType::FLOAT32),
            PExprKind::Str(text) => Expr::Str(text.clone()),
            PExprKind::Bool(b) => Expr::bool(*b),
            _ => self.bad_expr(e.span, format!("{} is not a value", e.describe()), "an expression", e.describe()),
        }
    }

    fn comparison(&mut self, op: CmpOp, lhs: &PExpr, rhs: &PExpr) -> Expr {
        let (l, r) = self.unify(lhs, rhs);
        Expr::cmp(op, l, r)
    }

    fn logic(&mut self, op: LogicOp, lhs: &PExpr, rhs: &PExpr) -> Expr {
        let l = self.expr(lhs);
        let r = self.expr(rhs);
        Expr::logic(op, l, r)
    }

    fn name_value(&mut self, name: &str, span: Span) -> Expr {
        match self.scopes.lookup(name) {
            Some(Binding::Buffer(buffer)) if is_scalar_buffer(buffer) => {
                let buffer = buffer.clone();
                Expr::load(&buffer, scalar_indices(&buffer))
            }
            Some(Binding::Buffer(_)) => self.bad_expr(
                span,
                format!("buffer `{name}` is not a value"),
                format!("an expression, e.g. `{name}[...]` or `{name}.data`"),
                format!("buffer `{name}`"),
            ),
            Some(Binding::Poison) => Expr::int(0),
            Some(binding) => binding.var().map_or_else(|| Expr::int(0), Expr::var),
            None => self.undefined(name, span),
        }
    }

    pub fn undefined(&mut self, name: &str, span: Span) -> Expr {
        self.bad_expr(span, format!("undefined name `{name}`"), "a name defined earlier", format!("`{name}`"))
    }

    /// `A.data` and `A.elem_offset` of a buffer.
    fn attr_value(&mut self, value: &PExpr, attr: &str, e: &PExpr) -> Expr {
        let dotted = e.dotted();
        let Some(name) = value.as_name() else {
            return self.bad_expr(e.span, "unsupported attribute access", "a name or `A.data`", e.describe());
        };
        match self.scopes.lookup(name) {
            Some(Binding::Buffer(buffer)) => match attr {
                "data" => Expr::var(buffer.data()),
                "elem_offset" => buffer.elem_offset().clone(),
                _ => self.bad_expr(
                    e.span,
                    format!("buffer `{name}` has no attribute `{attr}`"),
                    "`data` or `elem_offset`",
                    format!("`{attr}`"),
                ),
            },
            Some(Binding::Poison) => Expr::int(0),
            Some(_) => self.bad_expr(
                e.span,
                format!("`{name}` has no attribute `{attr}`"),
                "a buffer attribute such as `A.data`",
                e.describe(),
            ),
            None if name == "T" => {
                let text = dotted.unwrap_or_default();
                self.bad_expr(e.span, format!("`{text}` is not a value"), "an expression", format!("`{text}`"))
            }
            None => self.undefined(name, value.span),
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &PExpr, e: &PExpr) -> Expr {
        if matches!(op, UnaryOp::Neg | UnaryOp::Pos) && e.is_number_literal() {
            return self.folded_literal(e);
        }
        let value = self.expr(operand);
        apply_unary(op, value)
    }

    /// `-3`, `+2.5`: the literal with its sign.
    fn folded_literal(&mut self, e: &PExpr) -> Expr {
        match literal(e) {
            Some(Lit::Int(v)) => self.int_literal(v, e.span),
            Some(Lit::Float(v)) => Expr::float(v, DataType::FLOAT32),
            None => Expr::int(0),
        }
    }

    fn arith(&mut self, op: ArithOp, lhs: &PExpr, rhs: &PExpr) -> Expr {
        let operands = self.unify(lhs, rhs);
        arith_node(op, operands)
    }

    /// The buffer a subscript or store names; `None` after reporting (or for a poisoned name).
    pub fn subscript_buffer(&mut self, base: &PExpr, action: &str) -> Option<Buffer> {
        let Some(name) = base.as_name() else {
            self.error(base.span, format!("cannot {action} {}", base.describe()), "a buffer name", base.describe());
            return None;
        };
        match self.scopes.lookup(name) {
            Some(Binding::Buffer(buffer)) => Some(buffer.clone()),
            Some(Binding::Poison) => None,
            Some(_) => {
                self.error(
                    base.span,
                    format!("cannot {action} `{name}`: it is not a buffer"),
                    "a buffer",
                    format!("variable `{name}`"),
                );
                None
            }
            None => {
                self.undefined(name, base.span);
                None
            }
        }
    }

    fn load(&mut self, base: &PExpr, items: &[PIndex]) -> Expr {
        let Some(buffer) = self.subscript_buffer(base, "index") else {
            return Expr::int(0);
        };
        let indices = self.indices(&buffer, items, base.span);
        Expr::load(&buffer, indices)
    }

    /// The indices of an access; a slice `a:b` is the vector index `Ramp(a, 1, b - a)`.
    pub fn indices(&mut self, buffer: &Buffer, items: &[PIndex], span: Span) -> Vec<Expr> {
        if items.len() != buffer.shape().len() {
            self.wrong_index_count(buffer, items.len(), span);
        }
        let mut indices = Vec::with_capacity(items.len());
        for item in items {
            let index = self.index(item);
            indices.push(index);
        }
        indices
    }

    fn index(&mut self, item: &PIndex) -> Expr {
        match item {
            PIndex::Point(e) => self.expr(e),
            PIndex::Slice { lo, hi, step, span } => self.slice_index(lo, hi, step.as_ref(), *span),
        }
    }

    pub fn wrong_index_count(&mut self, buffer: &Buffer, found: usize, span: Span) {
        let expected = match buffer.shape().len() {
            1 => "1 index".to_string(),
            n => format!("{n} indices"),
        };
        self.error(span, format!("wrong number of indices for `{}`", buffer.name()), expected, found.to_string());
    }

    fn slice_index(&mut self, lo: &PExpr, hi: &PExpr, step: Option<&PExpr>, span: Span) -> Expr {
        let (lo, hi) = self.unify(lo, hi);
        let (base, extent) = min_extent(lo, hi);
        let stride = match step {
            Some(step) => self.expr_as(step, base.dtype()),
            None => constant_like(1, base.dtype()),
        };
        let lanes = match (extent.as_int(), stride.as_int()) {
            (Some(extent), Some(stride)) if extent > 0 && stride > 0 => {
                extent.checked_add(stride - 1).and_then(|n| u16::try_from(n / stride).ok())
            }
            _ => None,
        };
        match lanes {
            Some(1) => base,
            Some(lanes) => Expr::ramp(base, stride, lanes),
            None => self.bad_expr(
                span,
                "a vector slice needs a constant, positive length",
                "`a:b` with a constant `b - a` between 1 and 65535",
                "a non-constant or empty slice",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::var::Var;

    #[test]
    fn min_extent_rule() {
        let i = Var::new("i", DataType::INT32);
        let (min, ext) = min_extent(Expr::int(2), Expr::int(16));
        assert_eq!((min, ext), (Expr::int(2), Expr::int(14)));
        let (_, ext) = min_extent(Expr::var(&i), Expr::var(&i) + Expr::int(4));
        assert_eq!(ext, Expr::int(4));
        let (_, ext) = min_extent(Expr::var(&i), Expr::int(16));
        assert_eq!(ext, Expr::int(16) - Expr::var(&i));
        let (_, ext) = min_extent(Expr::int(1), Expr::int(1) + Expr::var(&i));
        assert_eq!(ext, Expr::var(&i));
    }
}
