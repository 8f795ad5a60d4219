//! The dependence test that makes vectorizing a loop body legal.
//!
//! Vectorizing runs each statement for all iterations before the next statement, and each
//! load before any store of its statement; serially, iteration `k` runs entirely before
//! iteration `k + 1`. The two orders give the same results when no storage element written in
//! the loop is touched by two different iterations. This file proves that conservatively:
//! for every data variable the body stores to, every access to it (load or store) goes
//! through one buffer with the same indices, whose last index is `a * i + b` with `a` a
//! non-zero constant small enough that no two iterations wrap onto one value and `b`
//! uniform, and whose last stride is compact or a non-zero constant. Then iteration `k`
//! touches only its own element, and the order between iterations does not matter.
//!
//! Invariant: the test only reads the body; it never proves anything about buffers that are
//! not written in the loop (reading them in any order is safe).

use std::collections::HashMap;

use tirproof_ir::index_arith::{coefficient, const_int};
use tirproof_ir::print::print_expr;
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{Buffer, Expr, Stmt, StmtKind, Var, VarId};

use super::blocker::Blocker;

/// One load or store in the loop body.
struct Access {
    buffer: Buffer,
    indices: Vec<Expr>,
    write: bool,
}

#[derive(Default)]
struct Accesses {
    list: Vec<Access>,
    /// Values of the variables let-bound in the body.
    lets: HashMap<VarId, Expr>,
}

impl Visitor for Accesses {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Load(load) => {
                self.list.push(Access { buffer: load.buffer.clone(), indices: load.indices.clone(), write: false })
            }
            Expr::Let { var, value, .. } => {
                self.lets.insert(var.id(), (**value).clone());
            }
            _ => {}
        }
        walk_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Store(st) => {
                self.list.push(Access { buffer: st.buffer.clone(), indices: st.indices.clone(), write: true })
            }
            StmtKind::Let { var, value, .. } => {
                self.lets.insert(var.id(), value.clone());
            }
            _ => {}
        }
        walk_stmt(self, s);
    }
}

/// Checks that the body of a loop over `var` with `extent` iterations may be vectorized.
pub(super) fn check(body: &Stmt, var: &Var, extent: i64) -> Result<(), Blocker> {
    let mut acc = Accesses::default();
    acc.visit_stmt(body);
    let mut checked: Vec<VarId> = Vec::new();
    for store in acc.list.iter().filter(|a| a.write) {
        let data = store.buffer.data().id();
        if checked.contains(&data) {
            continue;
        }
        checked.push(data);
        for other in acc.list.iter().filter(|a| a.buffer.data().id() == data) {
            same_element(store, other)?;
        }
        own_element_per_iteration(store, var, extent, &acc.lets)?;
    }
    Ok(())
}

fn dependence(buffer: &Buffer, why: String) -> Blocker {
    Blocker::Dependence { buffer: buffer.name().to_string(), why }
}

/// `other` touches exactly the element `store` writes, in the same iteration.
fn same_element(store: &Access, other: &Access) -> Result<(), Blocker> {
    if other.buffer != store.buffer {
        return Err(dependence(&store.buffer, format!("shares its data with `{}`, also accessed", other.buffer)));
    }
    if other.indices != store.indices {
        let show = |i: &[Expr]| i.iter().map(print_expr).collect::<Vec<_>>().join(", ");
        return Err(dependence(
            &store.buffer,
            format!("is accessed at [{}] and at [{}]", show(&store.indices), show(&other.indices)),
        ));
    }
    Ok(())
}

/// Distinct iterations write distinct elements through the store's last index.
fn own_element_per_iteration(
    store: &Access,
    var: &Var,
    extent: i64,
    lets: &HashMap<VarId, Expr>,
) -> Result<(), Blocker> {
    let Some(last) = store.indices.last() else {
        return Err(dependence(&store.buffer, "has no index to tell iterations apart".to_string()));
    };
    let a = match coefficient(last, var, lets) {
        // The store itself does not vary; the vectorizer reports that more precisely.
        Some(0) => return Ok(()),
        Some(a) => a,
        None => {
            return Err(dependence(
                &store.buffer,
                format!("its index `{}` is not an affine function of `{var}`", print_expr(last)),
            ))
        }
    };
    let span = a.unsigned_abs().checked_mul(extent.saturating_sub(1).unsigned_abs());
    if span.is_none_or(|s| s >= 1 << 31) {
        return Err(dependence(&store.buffer, "its index may wrap, so two iterations could share an element".into()));
    }
    match store.buffer.strides().last() {
        None => Ok(()),
        Some(s) if const_int(s).is_some_and(|s| s != 0) => Ok(()),
        Some(s) => {
            Err(dependence(&store.buffer, format!("its last stride `{}` is not a non-zero constant", print_expr(s))))
        }
    }
}
