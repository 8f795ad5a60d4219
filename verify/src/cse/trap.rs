//! When a statement of the original program definitely faults: the obligation of a binding CSE
//! inserts before it. The binding's value is computed first in the rewritten program; if that
//! can fault, the original statement must fault then too (later, but a fault is a fault), or
//! the rewrite added a fault the program did not have.
//!
//! The condition is an under-approximation of "the statement faults", which is what makes the
//! obligation sound: a store or an evaluation faults when one of its expressions does; a
//! sequence when one of its statements does; a let when its value or its body does; an `if`
//! through its condition or its taken branch; a loop through its bounds, or through its first
//! iteration when its extent is positive; attributes and allocations through their body.
//! Barriers and blocks count as never faulting. Every statement reads a fresh memory (a store
//! before it may have changed any buffer), so nothing is assumed about loaded values.

use tirproof_ir::{Expr, Stmt, StmtKind};
use z3::ast::{Bool, BV};

use super::encode::Encoder;
use super::sym::{any, bv_width, Lane};
use super::{EncodeError, Side};

/// The condition under which `s` (original program) definitely faults.
pub fn definite_fault(enc: &mut Encoder<'_>, s: &Stmt) -> Result<Bool, EncodeError> {
    enc.bump_memory(Side::Original);
    match &s.kind {
        StmtKind::Store(store) => {
            let mut faults = Vec::new();
            for i in &store.indices {
                faults.push(enc.expr(i, Side::Original)?.trap);
            }
            faults.push(enc.expr(&store.value, Side::Original)?.trap);
            Ok(any(&faults.iter().collect::<Vec<_>>()))
        }
        StmtKind::Evaluate(e) => Ok(enc.expr(e, Side::Original)?.trap),
        StmtKind::Let { var, value, body } => {
            let v = enc.expr(value, Side::Original)?;
            enc.bind(var.id(), v.lanes);
            let b = definite_fault(enc, body)?;
            Ok(any(&[&v.trap, &b]))
        }
        StmtKind::Seq(items) => {
            let mut faults = Vec::new();
            for item in items {
                faults.push(definite_fault(enc, item)?);
            }
            Ok(any(&faults.iter().collect::<Vec<_>>()))
        }
        StmtKind::If { cond, then_case, else_case } => {
            let c = enc.expr(cond, Side::Original)?;
            let taken = c.lanes.first().map_or_else(|| Bool::from_bool(false), Lane::truthy);
            let then_fault = definite_fault(enc, then_case)?;
            let else_fault = match else_case {
                Some(e) => definite_fault(enc, e)?,
                None => Bool::from_bool(false),
            };
            Ok(any(&[&c.trap, &taken.ite(&then_fault, &else_fault)]))
        }
        StmtKind::For(f) => {
            let min = enc.expr(&f.min, Side::Original)?;
            let extent = enc.expr(&f.extent, Side::Original)?;
            let runs = positive(&extent.lanes, &f.extent)?;
            enc.bind(f.var.id(), min.lanes.clone());
            let first = definite_fault(enc, &f.body)?;
            Ok(any(&[&min.trap, &extent.trap, &Bool::and(&[runs, first])]))
        }
        StmtKind::Attr(a) => definite_fault(enc, &a.body),
        StmtKind::Allocate(a) => definite_fault(enc, &a.body),
        StmtKind::AllocBuffer { body, .. }
        | StmtKind::DeclBuffer { body, .. }
        | StmtKind::LaunchThread { body, .. } => definite_fault(enc, body),
        StmtKind::Barrier { .. } | StmtKind::Block(_) => Ok(Bool::from_bool(false)),
    }
}

/// Whether a loop extent is greater than zero (signed for signed types).
fn positive(lanes: &[Lane], extent: &Expr) -> Result<Bool, EncodeError> {
    let t = extent.dtype();
    let Some(lane) = lanes.first() else { return Ok(Bool::from_bool(false)) };
    let v = lane.bv()?;
    let zero = BV::from_u64(0, bv_width(t)?);
    Ok(if super::sym::is_signed(t) { v.bvsgt(&zero) } else { v.eq(&zero).not() })
}
