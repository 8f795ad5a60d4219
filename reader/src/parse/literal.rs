//! Literals: typing of bare number literals, typed immediates (`T.float32(1)`), data type
//! strings, constant arguments and annotation values.
//!
//! The literal typing rule mirrors TVMScript: a bare literal has a default type (int32, or
//! int64 when it does not fit; float32; bool), but where it meets a typed operand (the other
//! side of a binary operator or comparison, the arms of a select, a store into a buffer, a
//! declared let) it takes that operand's type instead: an int literal next to a float becomes
//! a float immediate, and next to a vector it is broadcast. Invariants: only syntactic
//! literals are ever retyped (never a computed expression), and out-of-range values are
//! reported, never wrapped silently.

use tirproof_ir::annotation::{AnnValue, Annotations};
use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;

use super::ast::{PExpr, PExprKind, UnaryOp};
use super::lower::Lowerer;

/// The value of a syntactic number literal, sign folded in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Lit {
    Int(i128),
    Float(f64),
}

/// The literal value of `-3`, `+2.5`, `7`; `None` for anything else.
pub(super) fn literal(e: &PExpr) -> Option<Lit> {
    match &e.kind {
        PExprKind::Int(v) => Some(Lit::Int(i128::from(*v))),
        PExprKind::Float(v) => Some(Lit::Float(*v)),
        PExprKind::Unary { op: UnaryOp::Pos, operand } => literal(operand),
        PExprKind::Unary { op: UnaryOp::Neg, operand } => match literal(operand)? {
            Lit::Int(v) => Some(Lit::Int(-v)),
            Lit::Float(v) => Some(Lit::Float(-v)),
        },
        _ => None,
    }
}

/// Whether `value` is representable in the integer (or bool) type `dtype`.
pub(super) fn fits(value: i128, dtype: DataType) -> bool {
    let bits = u32::from(dtype.bits).min(64);
    match dtype.code {
        TypeCode::Int => {
            let half = 1i128 << (bits.max(1) - 1);
            (-half..half).contains(&value)
        }
        TypeCode::UInt => (0..(1i128 << bits)).contains(&value) && value <= i128::from(i64::MAX),
        TypeCode::Bool => value == 0 || value == 1,
        _ => false,
    }
}

/// The type name written after `T.` (`T.int32`, `T.float32x4`), if it is one.
pub(super) fn dtype_of_name(dotted: &str) -> Option<DataType> {
    let name = dotted.strip_prefix("T.")?;
    // "float"/"int" parse as float32/int32, but `T.float`/`T.int` are not TVMScript types.
    if name == "float" || name == "int" {
        return None;
    }
    name.parse().ok()
}

impl Lowerer {
    /// A bare int literal: int32 when it fits, else int64.
    pub fn int_literal(&mut self, value: i128, span: Span) -> Expr {
        for dtype in [DataType::INT32, DataType::INT64] {
            if fits(value, dtype) {
                return Expr::int_of(value as i64, dtype);
            }
        }
        self.bad_expr(span, "integer literal out of range", "a value that fits in int64", value.to_string())
    }

    /// Lowers `e`; a bare literal takes type `dtype`.
    pub fn expr_as(&mut self, e: &PExpr, dtype: DataType) -> Expr {
        let lowered = self.expr(e);
        self.retype_if_literal(e, lowered, dtype)
    }

    fn retype_if_literal(&mut self, e: &PExpr, lowered: Expr, dtype: DataType) -> Expr {
        if e.is_number_literal() {
            self.retype(lowered, dtype, e.span)
        } else {
            lowered
        }
    }

    /// Lowers two operands that meet; a bare literal on one side takes the other's type.
    pub fn unify(&mut self, a: &PExpr, b: &PExpr) -> (Expr, Expr) {
        let ea = self.expr(a);
        let eb = self.expr(b);
        self.unify_lowered(a, b, ea, eb)
    }

    fn unify_lowered(&mut self, a: &PExpr, b: &PExpr, ea: Expr, eb: Expr) -> (Expr, Expr) {
        match (a.is_number_literal(), b.is_number_literal()) {
            (true, false) => (self.retype(ea, eb.dtype(), a.span), eb),
            (false, true) => {
                let dtype = ea.dtype();
                (ea, self.retype(eb, dtype, b.span))
            }
            _ => (ea, eb),
        }
    }

    /// Gives a literal immediate the type `target` (broadcast when `target` is a vector).
    pub fn retype(&mut self, literal: Expr, target: DataType, span: Span) -> Expr {
        let elem = target.element();
        let scalar = match literal {
            Expr::Int { value, .. } if elem.is_float() => Expr::float(value as f64, elem),
            Expr::Int { value, .. } if elem.is_integer() || elem.is_bool() => {
                if !fits(i128::from(value), elem) {
                    return self.bad_expr(
                        span,
                        format!("integer literal does not fit in {elem}"),
                        format!("a value of type {elem}"),
                        value.to_string(),
                    );
                }
                Expr::int_of(value, elem)
            }
            Expr::Float { value, .. } if elem.is_float() => Expr::float(value, elem),
            other => return other,
        };
        if target.lanes > 1 {
            Expr::broadcast(scalar, target.lanes)
        } else {
            scalar
        }
    }

    /// `T.float32(1.0)`, `T.int8(-1)`, `T.bool(True)`, `T.float32("inf")`: an immediate of
    /// that type; any other argument is cast (`T.int64(i)`).
    pub fn typed_immediate(&mut self, dtype: DataType, arg: &PExpr) -> Expr {
        if let PExprKind::Str(text) = &arg.kind {
            return self.special_float(dtype, text, arg.span);
        }
        let value = match (&arg.kind, literal(arg)) {
            (PExprKind::Bool(b), _) => Lit::Int(i128::from(*b)),
            (_, Some(lit)) => lit,
            (_, None) => {
                let value = self.expr(arg);
                return Expr::cast(dtype, value);
            }
        };
        match value {
            Lit::Float(v) if dtype.is_float() => Expr::float(v, dtype),
            Lit::Int(v) if dtype.is_float() => Expr::float(v as f64, dtype),
            Lit::Int(v) if (dtype.is_integer() || dtype.is_bool()) && fits(v, dtype) => Expr::int_of(v as i64, dtype),
            Lit::Int(v) if dtype.is_integer() || dtype.is_bool() => self.bad_expr(
                arg.span,
                format!("integer literal does not fit in {dtype}"),
                format!("a value of type {dtype}"),
                v.to_string(),
            ),
            _ => self.bad_expr(
                arg.span,
                format!("invalid value for `T.{dtype}`"),
                format!("a literal of type {dtype}"),
                arg.describe(),
            ),
        }
    }

    fn special_float(&mut self, dtype: DataType, text: &str, span: Span) -> Expr {
        let value = match text {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        };
        match value {
            Some(v) if dtype.is_float() => Expr::float(v, dtype),
            _ => self.bad_expr(
                span,
                format!("invalid value for `T.{dtype}`"),
                "a number, or \"inf\", \"-inf\" or \"nan\" for a float type",
                format!("string {text:?}"),
            ),
        }
    }

    /// A data type given as a string literal (`"float32"`).
    pub fn dtype_arg(&mut self, e: &PExpr) -> Option<DataType> {
        let Some(text) = e.as_str() else {
            self.error(e.span, "expected a data type string", "a string such as \"float32\"", e.describe());
            return None;
        };
        match text.parse::<DataType>() {
            Ok(dtype) => Some(dtype),
            Err(_) => {
                self.error(
                    e.span,
                    format!("unknown data type `{text}`"),
                    "a data type such as \"int32\", \"float16\" or \"float32x4\"",
                    format!("string {text:?}"),
                );
                None
            }
        }
    }

    /// A string literal argument; `what` names it in the diagnostic.
    pub fn string_arg(&mut self, e: &PExpr, what: &str) -> Option<String> {
        match e.as_str() {
            Some(text) => Some(text.to_string()),
            None => {
                self.error(e.span, format!("expected a string for {what}"), "a string literal", e.describe());
                None
            }
        }
    }

    /// A constant integer argument (a literal, possibly negative).
    pub fn const_int(&mut self, e: &PExpr, what: &str) -> Option<i64> {
        match literal(e) {
            Some(Lit::Int(v)) => match i64::try_from(v) {
                Ok(v) => Some(v),
                Err(_) => {
                    self.error(e.span, "integer literal out of range", "a value that fits in int64", v.to_string());
                    None
                }
            },
            _ => {
                self.error(
                    e.span,
                    format!("expected a constant integer for {what}"),
                    "an integer literal",
                    e.describe(),
                );
                None
            }
        }
    }

    /// A constant bool argument (`True`/`False`).
    pub fn const_bool(&mut self, e: &PExpr, what: &str) -> Option<bool> {
        match e.kind {
            PExprKind::Bool(b) => Some(b),
            _ => {
                self.error(e.span, format!("expected `True` or `False` for {what}"), "a bool literal", e.describe());
                None
            }
        }
    }

    /// A Python literal as an annotation value; anything else is an expression.
    pub fn ann_value(&mut self, e: &PExpr) -> AnnValue {
        match (&e.kind, literal(e)) {
            (_, Some(Lit::Int(v))) => match i64::try_from(v) {
                Ok(v) => AnnValue::Int(v),
                Err(_) => AnnValue::Expr(self.int_literal(v, e.span)),
            },
            (_, Some(Lit::Float(v))) => AnnValue::Float(v),
            (PExprKind::Bool(b), _) => AnnValue::Bool(*b),
            (PExprKind::Str(s), _) => AnnValue::Str(s.clone()),
            (PExprKind::List(items) | PExprKind::Tuple(items), _) => self.ann_list(items),
            (PExprKind::Dict(_), _) => AnnValue::Dict(self.annotations(e)),
            _ => AnnValue::Expr(self.expr(e)),
        }
    }

    fn ann_list(&mut self, items: &[PExpr]) -> AnnValue {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            let value = self.ann_value(item);
            values.push(value);
        }
        AnnValue::List(values)
    }

    /// A `{"key": value, ...}` dictionary, keys in written order (`None` is empty).
    pub fn annotations(&mut self, e: &PExpr) -> Annotations {
        let mut annotations = Annotations::new();
        let entries = match &e.kind {
            PExprKind::Dict(entries) => entries,
            PExprKind::NoneLit => return annotations,
            _ => {
                self.error(e.span, "expected a dict of annotations", "`{\"key\": value, ...}`", e.describe());
                return annotations;
            }
        };
        for (key, value) in entries {
            let Some(key) = self.dict_key(key) else { continue };
            let value = self.ann_value(value);
            annotations.insert(key, value);
        }
        annotations
    }

    /// A string dictionary key.
    pub fn dict_key(&mut self, key: &PExpr) -> Option<String> {
        match key.as_str() {
            Some(text) => Some(text.to_string()),
            None => {
                self.error(key.span, "dictionary keys must be strings", "a string literal", key.describe());
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks() {
        assert!(fits(127, DataType::INT8) && !fits(128, DataType::INT8) && fits(-128, DataType::INT8));
        assert!(fits(255, DataType::new(TypeCode::UInt, 8, 1)) && !fits(-1, DataType::new(TypeCode::UInt, 8, 1)));
        assert!(fits(i128::from(i64::MIN), DataType::INT64) && !fits(i128::from(i64::MAX) + 1, DataType::INT64));
        assert!(fits(1, DataType::BOOL) && !fits(2, DataType::BOOL));
    }

    #[test]
    fn type_names() {
        assert_eq!(dtype_of_name("T.int64"), Some(DataType::INT64));
        assert_eq!(dtype_of_name("T.float32x4"), Some(DataType::FLOAT32.with_lanes(4)));
        assert_eq!(dtype_of_name("T.float"), None);
        assert_eq!(dtype_of_name("T.exp"), None);
    }
}
