//! Lowering of calls in expression position: `T.FloorMod`-style operator functions,
//! `T.if_then_else`, `T.Select`, casts, `T.ramp`, `T.broadcast`, `T.Let`, typed immediates
//! (`T.float32(1.0)`), `T.call_extern`, and the intrinsics of `tirproof_ir::intrinsics`.
//!
//! Invariants: every callee is checked for its argument count before any argument is read,
//! so no lookup can fail on a short list; an unknown `T.foo` is "unknown intrinsic `T.foo`";
//! statement-only forms (`T.allocate`, `T.serial`, ...) are rejected here with a message
//! that says so, rather than as unknown intrinsics.

use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::{BinOp, Call, CallEffect, CmpOp, Expr, LogicOp};
use tirproof_ir::intrinsics;
use tirproof_ir::span::Span;

use super::ast::{Kwarg, PExpr, PExprKind};
use super::literal::dtype_of_name;
use super::lower::{Lowerer, Sig};
use super::scope::Binding;

/// Forms that only make sense as (part of) a statement.
const STATEMENT_FORMS: [&str; 35] = [
    "T.evaluate",
    "T.local_scalar",
    "T.shared_scalar",
    "T.attr",
    "T.sblock_attr",
    "T.func_attr",
    "T.match_buffer",
    "T.allocate",
    "T.alloc_buffer",
    "T.alloc_shared",
    "T.alloc_local",
    "T.decl_buffer",
    "T.sblock_alloc_buffer",
    "T.launch_thread",
    "T.env_thread",
    "T.sblock",
    "T.block",
    "T.init",
    "T.where",
    "T.reads",
    "T.writes",
    "T.LetStmt",
    "T.serial",
    "T.parallel",
    "T.vectorized",
    "T.unroll",
    "T.thread_binding",
    "T.grid",
    "T.Buffer",
    "T.axis.spatial",
    "T.axis.reduce",
    "T.axis.S",
    "T.axis.R",
    "T.axis.remap",
    "range",
];

const LET_SIG: Sig = Sig { name: "T.Let", params: &["body", "where"], positional: 2, required: 2 };

fn binary_fn(callee: &str) -> Option<BinOp> {
    Some(match callee {
        "T.Add" => BinOp::Add,
        "T.Sub" => BinOp::Sub,
        "T.Mul" => BinOp::Mul,
        "T.Div" => BinOp::Div,
        "T.FloorDiv" | "T.floordiv" => BinOp::FloorDiv,
        "T.FloorMod" | "T.floormod" => BinOp::FloorMod,
        "T.truncdiv" => BinOp::TruncDiv,
        "T.Mod" | "T.truncmod" => BinOp::TruncMod,
        "T.min" | "T.Min" => BinOp::Min,
        "T.max" | "T.Max" => BinOp::Max,
        _ => return None,
    })
}

fn cmp_fn(callee: &str) -> Option<CmpOp> {
    Some(match callee {
        "T.EQ" => CmpOp::Eq,
        "T.NE" => CmpOp::Ne,
        "T.LT" => CmpOp::Lt,
        "T.LE" => CmpOp::Le,
        "T.GT" => CmpOp::Gt,
        "T.GE" => CmpOp::Ge,
        _ => return None,
    })
}

impl Lowerer {
    /// Lowers a call expression. Nested calls recurse through here, `named_call` and the
    /// per-form helpers, so these only dispatch; diagnostics are built in separate helpers.
    pub fn call(&mut self, e: &PExpr) -> Expr {
        let PExprKind::Call { func, args, kwargs } = &e.kind else {
            return Expr::int(0);
        };
        match func.dotted() {
            Some(callee) => self.named_call(&callee, func, e.span, args, kwargs),
            None => self.bad_expr(e.span, "only named functions can be called", "`T.name(...)`", func.describe()),
        }
    }

    fn named_call(&mut self, callee: &str, func: &PExpr, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        if let Some(op) = binary_fn(callee) {
            return self.binary_fn(callee, op, span, args, kwargs);
        }
        if let Some(op) = cmp_fn(callee) {
            return self.cmp_fn(callee, op, span, args, kwargs);
        }
        match callee {
            "T.And" | "T.Or" => self.logic_fn(callee, span, args, kwargs),
            "T.Not" => self.not_fn(callee, span, args, kwargs),
            "T.if_then_else" | "T.Select" => self.select_fn(callee, span, args, kwargs),
            "T.Cast" | "T.cast" => self.cast_fn(callee, span, args, kwargs),
            "T.ramp" | "T.Ramp" => self.ramp_fn(callee, span, args, kwargs),
            "T.broadcast" | "T.Broadcast" => self.broadcast_fn(callee, span, args, kwargs),
            "T.Let" => self.let_fn(span, args, kwargs),
            "T.call_extern" | "T.call_pure_extern" => self.extern_fn(callee, span, args, kwargs),
            _ => self.other_call(callee, func, span, args, kwargs),
        }
    }

    /// Typed immediates, intrinsics, and the errors for everything else.
    fn other_call(&mut self, callee: &str, func: &PExpr, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        if STATEMENT_FORMS.contains(&callee) {
            return self.call_error(callee, func, span);
        }
        if let Some(dtype) = dtype_of_name(callee) {
            return self.immediate_fn(callee, dtype, span, args, kwargs);
        }
        match callee.strip_prefix("T.").and_then(intrinsics::lookup) {
            Some(intrinsic) => self.intrinsic(intrinsic, callee, span, args, kwargs),
            None => self.call_error(callee, func, span),
        }
    }

    /// A call that is not an expression: a statement form, an unknown intrinsic, a buffer
    /// method, or an unknown function.
    fn call_error(&mut self, callee: &str, func: &PExpr, span: Span) -> Expr {
        if STATEMENT_FORMS.contains(&callee) {
            return self.bad_expr(
                span,
                format!("`{callee}` cannot be used in an expression"),
                "an expression",
                format!("a call to `{callee}`"),
            );
        }
        if callee.starts_with("T.") {
            return self.bad_expr(
                func.span,
                format!("unknown intrinsic `{callee}`"),
                "a known intrinsic such as `T.exp`",
                format!("`{callee}`"),
            );
        }
        let base = callee.split('.').next().unwrap_or_default();
        if matches!(self.scopes.lookup(base), Some(Binding::Buffer(_))) {
            return self.bad_expr(
                span,
                format!("`{callee}` can only be assigned to a name"),
                format!("`name = {callee}(...)`"),
                "an expression",
            );
        }
        self.bad_expr(func.span, format!("unknown function `{callee}`"), "a `T.` function", format!("`{callee}`"))
    }

    fn cmp_fn(&mut self, callee: &str, op: CmpOp, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        match self.exact_args(callee, span, args, kwargs, 2) {
            Some([a, b]) => {
                let (a, b) = self.unify(a, b);
                Expr::cmp(op, a, b)
            }
            _ => Expr::int(0),
        }
    }

    fn not_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        match self.exact_args(callee, span, args, kwargs, 1) {
            Some([a]) => {
                let value = self.expr(a);
                Expr::logical_not(value)
            }
            _ => Expr::int(0),
        }
    }

    fn binary_fn(&mut self, callee: &str, op: BinOp, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        match self.exact_args(callee, span, args, kwargs, 2) {
            Some([a, b]) => {
                let (a, b) = self.unify(a, b);
                Expr::binary(op, a, b)
            }
            _ => Expr::int(0),
        }
    }

    fn logic_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        let op = if callee == "T.And" { LogicOp::And } else { LogicOp::Or };
        match self.exact_args(callee, span, args, kwargs, 2) {
            Some([a, b]) => {
                let (a, b) = (self.expr(a), self.expr(b));
                Expr::logic(op, a, b)
            }
            _ => Expr::int(0),
        }
    }

    fn select_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        let Some([cond, a, b]) = self.exact_args(callee, span, args, kwargs, 3) else {
            return Expr::int(0);
        };
        let cond = self.expr(cond);
        let (a, b) = self.unify(a, b);
        if callee == "T.Select" {
            Expr::select(cond, a, b)
        } else {
            Expr::if_then_else(cond, a, b)
        }
    }

    /// `T.Cast("float32", x)` and `T.cast(x, "float32")`.
    fn cast_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        let Some([a, b]) = self.exact_args(callee, span, args, kwargs, 2) else {
            return Expr::int(0);
        };
        let (dtype, value) = if callee == "T.Cast" { (a, b) } else { (b, a) };
        let Some(dtype) = self.dtype_arg(dtype) else {
            return Expr::int(0);
        };
        let value = self.expr(value);
        Expr::cast(dtype, value)
    }

    fn ramp_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        let Some([base, stride, lanes]) = self.exact_args(callee, span, args, kwargs, 3) else {
            return Expr::int(0);
        };
        let (base, stride) = self.unify(base, stride);
        match self.lanes_arg(lanes) {
            Some(lanes) => Expr::ramp(base, stride, lanes),
            None => Expr::int(0),
        }
    }

    fn broadcast_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        let Some([value, lanes]) = self.exact_args(callee, span, args, kwargs, 2) else {
            return Expr::int(0);
        };
        let value = self.expr(value);
        match self.lanes_arg(lanes) {
            Some(lanes) => Expr::broadcast(value, lanes),
            None => Expr::int(0),
        }
    }

    /// A constant lane count between 1 and 65535.
    fn lanes_arg(&mut self, e: &PExpr) -> Option<u16> {
        let lanes = self.const_int(e, "the lane count")?;
        match u16::try_from(lanes) {
            Ok(lanes) if lanes > 0 => Some(lanes),
            _ => {
                self.error(e.span, "invalid lane count", "a count between 1 and 65535", lanes.to_string());
                None
            }
        }
    }

    /// `T.Let(body, where={x: value, ...})`: the first binding is the outermost.
    fn let_fn(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        let Some(bound) = self.bind_args(&LET_SIG, span, args, kwargs) else {
            return Expr::int(0);
        };
        let (Some(body), Some(where_)) = (bound.get("body"), bound.get("where")) else {
            return Expr::int(0);
        };
        let PExprKind::Dict(entries) = &where_.kind else {
            return self.bad_expr(where_.span, "`where=` of `T.Let` must be a dict", "`{x: value}`", where_.describe());
        };
        let mut lets = Vec::new();
        for (key, value) in entries {
            let Some(name) = key.as_name() else {
                self.error(key.span, "`T.Let` binds names", "a name", key.describe());
                continue;
            };
            let value = self.expr(value);
            lets.push((tirproof_ir::var::Var::new(name, value.dtype()), value));
        }
        self.scopes.push();
        for (var, _) in &lets {
            self.scopes.bind(var.name(), Binding::Var(var.clone()));
        }
        let mut result = self.expr(body);
        self.scopes.pop();
        for (var, value) in lets.into_iter().rev() {
            result = Expr::let_in(var, value, result);
        }
        result
    }

    /// `T.call_extern("dtype", "name", args...)`.
    fn extern_fn(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        if let Some(kw) = kwargs.first() {
            return self.bad_expr(
                kw.span,
                format!("unexpected keyword argument `{}` to `{callee}`", kw.name),
                "positional arguments",
                format!("`{}`", kw.name),
            );
        }
        let [dtype, name, rest @ ..] = args else {
            self.wrong_count(callee, span, "at least 2 arguments", args.len());
            return Expr::int(0);
        };
        let (Some(dtype), Some(name)) = (self.dtype_arg(dtype), self.string_arg(name, "the function name")) else {
            return Expr::int(0);
        };
        let mut args = Vec::with_capacity(rest.len());
        self.exprs_into(rest, &mut args);
        let effect = if callee == "T.call_extern" { CallEffect::Opaque } else { CallEffect::Pure };
        Expr::Call(Call { name, dtype, args, effect, external: true })
    }

    /// `T.float32(1.0)` and friends.
    fn immediate_fn(&mut self, callee: &str, dtype: DataType, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Expr {
        if dtype.is_vector() {
            return self.bad_expr(
                span,
                format!("vector type `{dtype}` cannot make an immediate"),
                "a scalar type, e.g. `T.broadcast(T.float32(1), 4)`",
                format!("`{callee}`"),
            );
        }
        if dtype.is_handle() {
            return self.bad_expr(span, "`T.handle` cannot make an immediate", "a scalar type", format!("`{callee}`"));
        }
        match self.exact_args(callee, span, args, kwargs, 1) {
            Some([arg]) => self.typed_immediate(dtype, arg),
            _ => Expr::int(0),
        }
    }

    fn intrinsic(
        &mut self,
        intrinsic: &intrinsics::Intrinsic,
        callee: &str,
        span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
    ) -> Expr {
        if !self.intrinsic_args_ok(intrinsic, callee, span, args, kwargs) {
            return Expr::int(0);
        }
        let args = self.intrinsic_args(args);
        intrinsic_call(intrinsic, args)
    }

    /// Checks the argument count (and that there are no keywords); reports otherwise.
    fn intrinsic_args_ok(
        &mut self,
        intrinsic: &intrinsics::Intrinsic,
        callee: &str,
        span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
    ) -> bool {
        if let Some(kw) = kwargs.first() {
            self.error(
                kw.span,
                format!("unexpected keyword argument `{}` to `{callee}`", kw.name),
                "positional arguments",
                format!("`{}`", kw.name),
            );
            return false;
        }
        if intrinsic.accepts(args.len()) {
            return true;
        }
        let expected = if intrinsic.min_args == intrinsic.max_args {
            super::lower::plural(intrinsic.min_args, "argument")
        } else {
            format!("{} to {} arguments", intrinsic.min_args, intrinsic.max_args)
        };
        self.wrong_count(callee, span, &expected, args.len());
        false
    }

    /// Arguments of an intrinsic; literals after the first take the first one's type.
    fn intrinsic_args(&mut self, args: &[PExpr]) -> Vec<Expr> {
        let mut out = Vec::with_capacity(args.len());
        match args {
            [] => {}
            [only] => out.push(self.expr(only)),
            [first, second, rest @ ..] => {
                let (a, b) = self.unify(first, second);
                out.push(a);
                out.push(b);
                self.exprs_into(rest, &mut out);
            }
        }
        out
    }

    /// Lowers `items` in order, appending to `out` (a loop, not an iterator chain: this is on
    /// the recursive path of nested calls, where debug builds pay for every adapter frame).
    pub fn exprs_into(&mut self, items: &[PExpr], out: &mut Vec<Expr>) {
        for item in items {
            let value = self.expr(item);
            out.push(value);
        }
    }
}

/// The call node of an intrinsic with lowered arguments.
fn intrinsic_call(intrinsic: &intrinsics::Intrinsic, args: Vec<Expr>) -> Expr {
    let types: Vec<DataType> = args.iter().map(Expr::dtype).collect();
    Expr::Call(Call {
        name: intrinsic.name.to_string(),
        dtype: intrinsic.result_type(&types),
        args,
        effect: intrinsic.effect,
        external: false,
    })
}
