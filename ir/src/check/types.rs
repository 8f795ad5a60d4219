//! Typing rules: operands of an operator agree, conditions are bool, indices are integers,
//! vector constructors are well formed, loops, iteration variables and buffer shapes are
//! integers, and buffer accesses follow the lanes rule of docs/buffers-and-lanes.md.
//!
//! The lanes rule (docs/buffers-and-lanes.md): an access with an N-lane index into a
//! buffer whose element type has M lanes has type `element.with_lanes(N * M)`; only the last
//! index may be a vector (docs/buffers-and-lanes.md); a store's value must have exactly that type.
//! Float `%` and `//` are accepted (TVM defines them); bitwise operators are not defined on
//! floats or handles.
//!
//! Invariant: every rule here looks at one node and the types of its direct operands, so an
//! error deep in a tree is reported once, where it is, and not again by every ancestor.

use std::fmt::Display;

use super::{count, Checker};
use crate::buffer::{Buffer, BufferRegion};
use crate::dtype::DataType;
use crate::expr::{BufferLoad, Expr};
use crate::stmt::{BufferStore, For, IterVar};
use crate::var::Var;

/// Whether a buffer access reads or writes, for messages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Access {
    Load,
    Store,
}

impl Access {
    fn noun(self) -> &'static str {
        match self {
            Access::Load => "load",
            Access::Store => "store",
        }
    }
    fn phrase(self) -> &'static str {
        match self {
            Access::Load => "load from",
            Access::Store => "store to",
        }
    }
}

impl Checker {
    /// Reports unless `e` is a scalar integer.
    pub(super) fn expect_int(&mut self, e: &Expr, what: impl Display) {
        let t = e.dtype();
        if !(t.is_integer() && t.is_scalar()) {
            self.error(format!("{what} must be an integer, found {t}"));
        }
    }

    /// Reports unless `e` is a scalar bool.
    pub(super) fn expect_bool(&mut self, e: &Expr, what: impl Display) {
        let t = e.dtype();
        if t != DataType::BOOL {
            self.error(format!("{what} must be bool, found {t}"));
        }
    }

    /// The typing rule of one expression node, given its operands' types.
    pub(super) fn check_expr_node(&mut self, e: &Expr) {
        match e {
            Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) | Expr::Call(_) => {}
            Expr::Binary { lhs, .. } | Expr::Cmp { lhs, .. } | Expr::Logic { lhs, .. } => {
                self.check_operator_node(e, lhs.dtype());
            }
            Expr::Not(x) => {
                if !x.dtype().is_bool() {
                    self.error(format!("operand of `not` must be bool, found {}", x.dtype()));
                }
            }
            Expr::Select { cond, on_true, on_false } => self.check_select("T.Select", cond, on_true, on_false, true),
            Expr::IfThenElse { cond, on_true, on_false } => {
                self.check_select("T.if_then_else", cond, on_true, on_false, false)
            }
            Expr::Cast { dtype, value } => self.check_cast(*dtype, value),
            Expr::Ramp { base, stride, lanes } => self.check_ramp(base, stride, *lanes),
            Expr::Broadcast { value, lanes } => self.check_broadcast(value, *lanes),
            Expr::Let { var, value, .. } => self.check_let_types(var, value),
            Expr::Load(load) => self.check_load(load),
        }
    }

    /// The rule of a binary, comparison or logical node whose left operand has type `l` (the
    /// caller knows it: along a chain `a + b + ...` it is the type of the chain below, which
    /// asking the operand would recompute for every node).
    pub(super) fn check_operator_node(&mut self, e: &Expr, l: DataType) {
        match e {
            Expr::Binary { op, rhs, .. } => {
                let same = self.same_operand_types(op, l, rhs);
                if same && op.is_bitwise() && !(l.is_integer() || l.is_bool()) {
                    self.error(format!("bitwise operator `{op}` is not defined on {l}"));
                }
            }
            Expr::Cmp { op, rhs, .. } => {
                self.same_operand_types(op, l, rhs);
            }
            Expr::Logic { op, rhs, .. } => {
                let same = self.same_operand_types(op, l, rhs);
                if same && !l.is_bool() {
                    self.error(format!("operands of `{op}` must be bool, found {l}"));
                }
            }
            _ => {}
        }
    }

    /// Reports and returns false when the two operands of `op` have different types.
    fn same_operand_types(&mut self, op: impl Display, l: DataType, rhs: &Expr) -> bool {
        let r = rhs.dtype();
        if l != r {
            self.error(format!("operands of `{op}` have different types: {l} and {r}"));
        }
        l == r
    }

    /// `T.Select` may take a vector condition with the arms' lanes; `T.if_then_else` takes a
    /// scalar one (only the taken arm is evaluated, so there is one decision).
    fn check_select(&mut self, name: &str, cond: &Expr, on_true: &Expr, on_false: &Expr, vector_cond: bool) {
        let (c, t, f) = (cond.dtype(), on_true.dtype(), on_false.dtype());
        let lanes_ok = c.lanes == 1 || (vector_cond && c.lanes == t.lanes);
        if !c.is_bool() || !lanes_ok {
            let want = if vector_cond && t.lanes > 1 {
                format!("bool or {}", DataType::BOOL.with_lanes(t.lanes))
            } else {
                "bool".to_string()
            };
            self.error(format!("condition of `{name}` must be {want}, found {c}"));
        }
        if t != f {
            self.error(format!("arms of `{name}` have different types: {t} and {f}"));
        }
    }

    fn check_cast(&mut self, to: DataType, value: &Expr) {
        let from = value.dtype();
        if from.lanes != to.lanes && !from.is_handle() && !to.is_handle() {
            self.error(format!("cast from {from} to {to} changes the number of lanes"));
        }
    }

    fn check_ramp(&mut self, base: &Expr, stride: &Expr, lanes: u16) {
        let (b, s) = (base.dtype(), stride.dtype());
        if !(b.is_integer() && b.is_scalar()) {
            self.error(format!("base of `T.Ramp` must be a scalar integer, found {b}"));
        } else if s != b {
            self.error(format!("stride of `T.Ramp` must have the base's type {b}, found {s}"));
        }
        if lanes == 0 {
            self.error("`T.Ramp` must have at least 1 lane, found 0");
        }
    }

    fn check_broadcast(&mut self, value: &Expr, lanes: u16) {
        let t = value.dtype();
        if !t.is_scalar() {
            self.error(format!("value of `T.Broadcast` must be a scalar, found {t}"));
        }
        if lanes == 0 {
            self.error("`T.Broadcast` must have at least 1 lane, found 0");
        }
    }

    pub(super) fn check_let_types(&mut self, var: &Var, value: &Expr) {
        let (t, v) = (var.dtype(), value.dtype());
        if t != v {
            self.error(format!("let variable `{var}` has type {t}, but its value has type {v}"));
        }
    }

    fn check_load(&mut self, load: &BufferLoad) {
        self.check_access(Access::Load, &load.buffer, &load.indices);
    }

    /// The index rules shared by loads and stores; returns the accessed type (lanes rule), or
    /// `None` when an index error leaves it undefined.
    fn check_access(&mut self, access: Access, buffer: &Buffer, indices: &[Expr]) -> Option<DataType> {
        let rank = buffer.shape().len();
        if indices.len() != rank {
            self.error(format!(
                "{} `{buffer}` has {}, but the buffer has {}",
                access.phrase(),
                count(indices.len(), "index", "indices"),
                count(rank, "dimension", "dimensions")
            ));
        }
        let last = indices.len().saturating_sub(1);
        let mut indices_ok = true;
        for (d, index) in indices.iter().enumerate() {
            let t = index.dtype();
            if !t.is_integer() {
                self.error(format!("index {d} of `{buffer}` must be an integer, found {t}"));
                indices_ok = false;
            } else if t.is_vector() && d != last {
                self.error(format!("index {d} of `{buffer}` is a vector ({t}); only the last index may be a vector"));
                indices_ok = false;
            }
        }
        if !indices_ok {
            // The accessed type is undefined; comparing a stored value with it would only
            // repeat the index error.
            return None;
        }
        let elem = buffer.dtype();
        let index_lanes = indices.last().map_or(1, |i| i.dtype().lanes);
        match elem.lanes.checked_mul(index_lanes) {
            Some(lanes) => Some(elem.with_lanes(lanes)),
            None => {
                self.error(format!(
                    "{} of `{buffer}` ({elem} elements) with a {index_lanes}-lane index has more than {} lanes",
                    access.noun(),
                    u16::MAX
                ));
                None
            }
        }
    }

    /// A store: the index rules, then the value must have the accessed type.
    pub(super) fn check_store(&mut self, st: &BufferStore) {
        let Some(access) = self.check_access(Access::Store, &st.buffer, &st.indices) else {
            return;
        };
        let value = st.value.dtype();
        if value == access {
            return;
        }
        let elem = st.buffer.dtype();
        let index_lanes = st.indices.last().map_or(1, |i| i.dtype().lanes);
        let via = if index_lanes > 1 { format!(" with a {index_lanes}-lane index") } else { String::new() };
        self.error(format!("store to `{}` ({elem} elements){via} gives {access}, but the value is {value}", st.buffer));
    }

    /// Loop bounds are integers of the loop variable's type.
    pub(super) fn check_loop_types(&mut self, f: &For) {
        let t = f.var.dtype();
        if !(t.is_integer() && t.is_scalar()) {
            self.error(format!("loop variable `{}` must be an integer, found {t}", f.var));
            return;
        }
        for (what, e) in [("min", &f.min), ("extent", &f.extent)] {
            let et = e.dtype();
            if et != t {
                self.error(format!("{what} of loop `{}` has type {et}, but the loop variable is {t}", f.var));
            }
        }
    }

    /// An iteration variable's domain and binding have the variable's (integer) type.
    pub(super) fn check_iter_var_types(&mut self, iv: &IterVar) {
        let t = iv.var.dtype();
        if !(t.is_integer() && t.is_scalar()) {
            self.error(format!("iteration variable `{}` must be an integer, found {t}", iv.var));
            return;
        }
        for (what, e) in [("min", &iv.min), ("extent", &iv.extent), ("binding", &iv.binding)] {
            let et = e.dtype();
            if et != t {
                self.error(format!("{what} of iteration variable `{}` has type {et}, but the variable is {t}", iv.var));
            }
        }
    }

    /// A region names one integer range per dimension of its buffer.
    pub(super) fn check_region_types(&mut self, r: &BufferRegion) {
        let rank = r.buffer.shape().len();
        if r.region.len() != rank {
            self.error(format!(
                "region of `{}` has {}, but the buffer has {}",
                r.buffer,
                count(r.region.len(), "range", "ranges"),
                count(rank, "dimension", "dimensions")
            ));
        }
        for (d, range) in r.region.iter().enumerate() {
            self.expect_int(&range.min, format_args!("start of range {d} of `{}`", r.buffer));
            self.expect_int(&range.extent, format_args!("extent of range {d} of `{}`", r.buffer));
        }
    }
}
