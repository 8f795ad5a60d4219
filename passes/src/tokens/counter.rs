//! The closed-form commit counter: how many groups one execution of a statement commits to a
//! queue, as a polynomial of the variables around it.
//!
//! Invariants: a count exists only where it does not depend on the path: both arms of an `if`
//! (a block's predicate against nothing) commit the same number, and a loop's body commits
//! the same number in every iteration (a body count that mentions the loop's own variable or
//! a variable bound inside is no count); a loop then commits its extent times its body (the
//! extent may be symbolic, never loaded from memory). A thread-binding loop runs its body
//! once per thread, so it counts one execution. A commit to a queue that is not a constant
//! makes every count unknown. Chains are read through `async_op` only.

use tirproof_ir::async_op::{decode_annotations, decode_chain};
use tirproof_ir::index_arith::const_int;
use tirproof_ir::{ForKind, Stmt, StmtKind};

use super::poly::{Atoms, Poly};

/// The number of groups one execution of `stmt` commits to queue `queue`, or `None` where it
/// depends on the path (or on memory).
pub(crate) fn commits(stmt: &Stmt, queue: i64, atoms: &mut Atoms) -> Option<Poly> {
    let mark = atoms.enter();
    let count = commits_in(stmt, queue, atoms);
    atoms.leave(mark);
    count
}

/// 1 for a commit to `queue`, 0 for one to another constant queue, `None` for a queue that is
/// not a constant.
pub(crate) fn commit_of(commit: Option<&tirproof_ir::Expr>, queue: i64) -> Option<Poly> {
    match commit {
        None => Some(Poly::default()),
        Some(q) => Some(Poly::constant(i64::from(const_int(q)? == queue))),
    }
}

fn commits_in(stmt: &Stmt, queue: i64, atoms: &mut Atoms) -> Option<Poly> {
    match &stmt.kind {
        StmtKind::Store(_) | StmtKind::Evaluate(_) | StmtKind::Barrier { .. } => Some(Poly::default()),
        StmtKind::Seq(stmts) => stmts.iter().try_fold(Poly::default(), |sum, s| sum.add(&commits_in(s, queue, atoms)?)),
        StmtKind::If { then_case, else_case, .. } => {
            let then = commits_in(then_case, queue, atoms)?;
            let other = match else_case {
                Some(e) => commits_in(e, queue, atoms)?,
                None => Poly::default(),
            };
            (then == other).then_some(then)
        }
        StmtKind::For(f) => {
            atoms.allow(&f.var);
            let body = commits_in(&f.body, queue, atoms)?;
            if f.kind == ForKind::ThreadBinding {
                return Some(body);
            }
            if atoms.mentions(&body, &f.var) {
                return None;
            }
            if body.as_const() == Some(0) {
                return Some(body);
            }
            atoms.poly(&f.extent)?.mul(&body)
        }
        StmtKind::Let { var, value, body } => {
            atoms.bind(var, value);
            commits_in(body, queue, atoms)
        }
        StmtKind::LaunchThread { var, body, .. } => {
            atoms.allow(var);
            commits_in(body, queue, atoms)
        }
        StmtKind::Attr(attr) => match decode_chain(attr) {
            Some(chain) => {
                let ops = chain.ops().ok()?;
                commits_in(chain.body, queue, atoms)?.add(&commit_of(ops.commit.as_ref(), queue)?)
            }
            None => commits_in(&attr.body, queue, atoms),
        },
        StmtKind::Allocate(a) => commits_in(&a.body, queue, atoms),
        StmtKind::AllocBuffer { body, .. } | StmtKind::DeclBuffer { body, .. } => commits_in(body, queue, atoms),
        StmtKind::Block(block) => {
            for iv in &block.iter_vars {
                atoms.bind(&iv.var, &iv.binding);
            }
            let ops = decode_annotations(&block.annotations).ok()?;
            let own = commit_of(ops.as_ref().and_then(|o| o.commit.as_ref()), queue)?;
            let total = commits_in(&block.body, queue, atoms)?.add(&own)?;
            let init = match &block.init {
                Some(init) => commits_in(init, queue, atoms)?,
                None => Poly::default(),
            };
            // A predicate or an init runs on some paths only: it must commit nothing.
            let conditional = block.predicate.is_some() && total.as_const() != Some(0);
            (init.as_const() == Some(0) && !conditional).then_some(total)
        }
    }
}
