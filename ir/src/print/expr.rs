//! Printing expressions, annotation values and literals.
//!
//! Parentheses follow Python precedence: a child is wrapped when it binds more loosely than
//! its context needs, the right operand of a left-associative operator is wrapped at equal
//! precedence, and comparisons never chain. Immediates of a type other than int32, bool and
//! the literal defaults are written typed (`T.int64(5)`, `T.float32(1.0)`) so the parser
//! recovers the exact type.

use crate::annotation::{AnnValue, Annotations};
use crate::dtype::DataType;
use crate::expr::{prec, BinOp, Call, CallEffect, Expr, OpSyntax};

use super::Printer;

impl Printer {
    /// The text of `e`, parenthesized if it binds more loosely than `min_prec`.
    pub(crate) fn expr_prec(&mut self, e: &Expr, min_prec: u8) -> String {
        let (text, p) = self.expr_inner(e);
        if p < min_prec {
            format!("({text})")
        } else {
            text
        }
    }

    pub(crate) fn expr(&mut self, e: &Expr) -> String {
        self.expr_prec(e, 0)
    }

    fn expr_inner(&mut self, e: &Expr) -> (String, u8) {
        match e {
            Expr::Int { value, dtype } => int_literal(*value, *dtype),
            Expr::Float { value, dtype } => (float_literal(*value, *dtype), prec::ATOM),
            Expr::Str(s) => (quote(s), prec::ATOM),
            Expr::Var(v) => (self.names.var(v), prec::ATOM),
            Expr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            Expr::Cmp { op, lhs, rhs } => {
                let l = self.expr_prec(lhs, prec::CMP + 1);
                let r = self.expr_prec(rhs, prec::CMP + 1);
                (format!("{l} {op} {r}"), prec::CMP)
            }
            Expr::Logic { op, lhs, rhs } => {
                let p = if *op == crate::expr::LogicOp::And { prec::AND } else { prec::OR };
                let l = self.expr_prec(lhs, p);
                let r = self.expr_prec(rhs, p + 1);
                (format!("{l} {op} {r}"), p)
            }
            Expr::Not(v) => (format!("not {}", self.expr_prec(v, prec::NOT)), prec::NOT),
            _ => (self.call_like(e), prec::ATOM),
        }
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr) -> (String, u8) {
        match op.syntax() {
            OpSyntax::Infix(sym, p) => {
                let l = self.expr_prec(lhs, p);
                let r = self.expr_prec(rhs, p + 1);
                (format!("{l} {sym} {r}"), p)
            }
            OpSyntax::Call(name) => (format!("{name}({}, {})", self.expr(lhs), self.expr(rhs)), prec::ATOM),
        }
    }

    /// Expressions written as calls or subscripts.
    fn call_like(&mut self, e: &Expr) -> String {
        match e {
            Expr::Select { cond, on_true, on_false } => self.call3("T.Select", cond, on_true, on_false),
            Expr::IfThenElse { cond, on_true, on_false } => self.call3("T.if_then_else", cond, on_true, on_false),
            Expr::Cast { dtype, value } => format!("T.Cast(\"{dtype}\", {})", self.expr(value)),
            Expr::Ramp { base, stride, lanes } => {
                format!("T.Ramp({}, {}, {lanes})", self.expr(base), self.expr(stride))
            }
            Expr::Broadcast { value, lanes } => format!("T.Broadcast({}, {lanes})", self.expr(value)),
            Expr::Let { var, value, body } => {
                let value = self.expr(value);
                // Declared at the top of the function (`v = T.int32()`) when printed whole.
                let declared = self.names.knows_var(var);
                if !declared {
                    self.names.open_scope();
                }
                let name = if declared { self.names.var(var) } else { self.names.define_var(var) };
                let body = self.expr(body);
                if !declared {
                    self.names.close_scope();
                }
                format!("T.Let({body}, where={{{name}: {value}}})")
            }
            Expr::Load(load) => {
                let name = self.names.buffer(&load.buffer);
                format!("{name}[{}]", self.index_list(&load.indices))
            }
            Expr::Call(call) => self.call(call),
            _ => self.expr(e),
        }
    }

    fn call3(&mut self, name: &str, a: &Expr, b: &Expr, c: &Expr) -> String {
        format!("{name}({}, {}, {})", self.expr(a), self.expr(b), self.expr(c))
    }

    fn call(&mut self, call: &Call) -> String {
        // The reader gives a bare literal among an intrinsic's first two arguments the other
        // one's type (`T.pow(x, 2)`), so a literal of another type is written typed.
        let mixed = !call.external && matches!(&call.args[..], [a, b, ..] if a.dtype() != b.dtype());
        let args: Vec<String> = call
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Expr::Int { value, dtype } if mixed && i < 2 && dtype.is_bool() => {
                    format!("T.bool({})", if *value != 0 { "True" } else { "False" })
                }
                Expr::Int { value, dtype } if mixed && i < 2 => format!("T.{dtype}({value})"),
                _ => self.expr(a),
            })
            .collect();
        if call.external {
            let callee = if call.effect == CallEffect::Pure { "T.call_pure_extern" } else { "T.call_extern" };
            let mut parts = vec![format!("\"{}\"", call.dtype), quote(&call.name)];
            parts.extend(args);
            format!("{callee}({})", parts.join(", "))
        } else {
            format!("T.{}({})", call.name, args.join(", "))
        }
    }

    /// Comma-separated indices; `()` for a zero-dimensional access.
    pub(crate) fn index_list(&mut self, indices: &[Expr]) -> String {
        if indices.is_empty() {
            return "()".to_string();
        }
        indices.iter().map(|i| self.expr(i)).collect::<Vec<_>>().join(", ")
    }

    /// A shape or stride tuple: `(16,)`, `(2, 1)`.
    pub(crate) fn tuple(&mut self, items: &[Expr]) -> String {
        let parts: Vec<String> = items.iter().map(|i| self.expr(i)).collect();
        match parts.len() {
            1 => format!("({},)", parts[0]),
            _ => format!("({})", parts.join(", ")),
        }
    }

    /// The end of a half-open interval: folded when constant, else `min + extent`.
    pub(crate) fn interval_end(&mut self, min: &Expr, extent: &Expr) -> String {
        match (min, extent) {
            (Expr::Int { value: a, dtype }, Expr::Int { value: b, .. }) => int_literal(a.wrapping_add(*b), *dtype).0,
            _ => self.expr(&(min.clone() + extent.clone())),
        }
    }

    pub(crate) fn annotations(&mut self, ann: &Annotations) -> String {
        let entries: Vec<String> =
            ann.entries.iter().map(|(k, v)| format!("{}: {}", quote(k), self.ann_value(v))).collect();
        format!("{{{}}}", entries.join(", "))
    }

    fn ann_value(&mut self, v: &AnnValue) -> String {
        match v {
            AnnValue::Int(i) => i.to_string(),
            AnnValue::Float(f) => python_float(*f),
            AnnValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            AnnValue::Str(s) => quote(s),
            AnnValue::List(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.ann_value(i)).collect();
                format!("[{}]", parts.join(", "))
            }
            AnnValue::Dict(d) => self.annotations(d),
            AnnValue::Expr(e) => self.expr(e),
        }
    }
}

/// An integer immediate: plain for int32, `True`/`False` for bool, typed otherwise.
fn int_literal(value: i64, dtype: DataType) -> (String, u8) {
    if dtype.is_bool() && dtype.is_scalar() {
        return ((if value != 0 { "True" } else { "False" }).to_string(), prec::ATOM);
    }
    if dtype == DataType::INT32 {
        let p = if value < 0 { prec::UNARY } else { prec::ATOM };
        return (value.to_string(), p);
    }
    (format!("T.{dtype}({value})"), prec::ATOM)
}

fn float_literal(value: f64, dtype: DataType) -> String {
    if value.is_finite() {
        format!("T.{dtype}({})", python_float(value))
    } else {
        let text = if value.is_nan() {
            "nan"
        } else if value > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        format!("T.{dtype}(\"{text}\")")
    }
}

/// A float in a form Python reads back to the same value (always with a `.` or exponent).
fn python_float(value: f64) -> String {
    let text = format!("{value:?}");
    if text.contains(['.', 'e', 'E', 'n', 'i']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// A double-quoted Python string literal.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
