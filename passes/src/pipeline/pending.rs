//! Accesses an asynchronous statement makes to its own pending writes.
//!
//! Under `async_scope` every store is asynchronous: its value lands when its group completes,
//! and until then reading or rewriting that element faults. A statement's own writes are in the
//! group committed after it, which no wait can complete while the statement runs. So a
//! statement of an async stage that may touch an element after writing it in the same instance
//! (later in its body, or in a later iteration of a loop inside it) cannot be made correct with
//! waits, and the pass refuses it. (Touching what it wrote in an earlier iteration of the
//! pipelined loop is an ordinary dependence that gets a wait; see `deps`.)
//!
//! The test is conservative. Two accesses through one buffer without explicit strides touch
//! different elements when, in the same iteration, one of their indices is two different
//! constants; or, across iterations of a loop inside the statement, their indices are the same
//! and one of them is `a * var + b` with `a` a non-zero constant, `b` free of the variables of
//! the loops inside that loop, and no wrap-around over the loop's iterations.

use std::collections::HashMap;

use tirproof_ir::index_arith::{coefficient, const_int, mentions};
use tirproof_ir::pipeline_annotations::PipelineSpec;
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{Buffer, Expr, For, Stmt, StmtKind, Var, VarId};

/// The first async statement that touches its own pending write, as a message.
pub fn check_async_statements(stmts: &[Stmt], spec: &PipelineSpec) -> Result<(), String> {
    for (k, stmt) in stmts.iter().enumerate().filter(|(k, _)| spec.is_async(*k)) {
        let Some(hazard) = first_hazard(stmt) else { continue };
        let stage = spec.stages.get(k).copied().unwrap_or_default();
        let verb = if hazard.write { "overwrite" } else { "read" };
        let line = if hazard.line > 0 { format!(" (line {})", hazard.line) } else { String::new() };
        return Err(format!(
            "statement {k} (async stage {stage}) may {verb} `{}`{line} after writing the same element itself in one iteration; its async write is still pending then, and no wait can complete it before the statement's group is committed",
            hazard.buffer
        ));
    }
    Ok(())
}

/// An access to an element that may still have a pending write of the same statement.
#[derive(Debug)]
struct Hazard {
    buffer: Buffer,
    write: bool,
    line: u32,
}

fn first_hazard(stmt: &Stmt) -> Option<Hazard> {
    let mut checker = Checker::default();
    checker.visit_stmt(stmt);
    checker.found
}

/// A write made earlier in the statement instance.
struct Write {
    buffer: Buffer,
    indices: Vec<Expr>,
    /// The outermost enclosing loop (its depth) whose current iteration is later than the
    /// one that made the write; `None` when the write was made in the current iterations.
    carried: Option<usize>,
}

/// A loop of the statement enclosing the current point.
struct Loop {
    var: Var,
    extent: Option<i64>,
}

#[derive(Default)]
struct Checker {
    writes: Vec<Write>,
    loops: Vec<Loop>,
    /// Values of let-bound and block iteration variables, to see through them.
    lets: HashMap<VarId, Expr>,
    /// Walking a later iteration of some loop.
    repeating: bool,
    line: u32,
    found: Option<Hazard>,
}

impl Visitor for Checker {
    fn visit_stmt(&mut self, s: &Stmt) {
        if self.found.is_some() {
            return;
        }
        let saved = self.line;
        if s.span.is_known() {
            self.line = s.span.line;
        }
        match &s.kind {
            StmtKind::Store(store) => {
                store.indices.iter().for_each(|i| self.visit_expr(i));
                self.visit_expr(&store.value);
                self.access(&store.buffer, &store.indices, true);
                self.writes.push(Write { buffer: store.buffer.clone(), indices: store.indices.clone(), carried: None });
            }
            StmtKind::For(f) => self.for_loop(f),
            StmtKind::If { cond, then_case, else_case } => {
                self.visit_expr(cond);
                self.branches(then_case, else_case.as_deref());
            }
            StmtKind::Let { var, value, .. } => {
                self.lets.insert(var.id(), value.clone());
                walk_stmt(self, s);
            }
            StmtKind::Block(block) => {
                self.lets.extend(block.iter_vars.iter().map(|iv| (iv.var.id(), iv.binding.clone())));
                walk_stmt(self, s);
            }
            _ => walk_stmt(self, s),
        }
        self.line = saved;
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Let { var, value, .. } = e {
            self.lets.insert(var.id(), (**value).clone());
        }
        walk_expr(self, e);
        if let Expr::Load(load) = e {
            self.access(&load.buffer, &load.indices, false);
        }
    }
}

impl Checker {
    /// The body once as the first iteration, and, when the loop may repeat, once more as a
    /// later one (which sees the first one's writes as carried by this loop). Within that
    /// later one, inner loops are walked once: their own repetition was checked in the first.
    fn for_loop(&mut self, f: &For) {
        self.visit_expr(&f.min);
        self.visit_expr(&f.extent);
        let depth = self.loops.len();
        self.loops.push(Loop { var: f.var.clone(), extent: const_int(&f.extent) });
        let before = self.writes.len();
        self.visit_stmt(&f.body);
        if !self.repeating && self.loops[depth].extent.is_none_or(|n| n > 1) {
            let first = self.writes.len();
            self.writes[before..].iter_mut().for_each(|w| w.carried = Some(depth));
            self.repeating = true;
            self.visit_stmt(&f.body);
            self.repeating = false;
            // The later iteration writes where the first one did.
            self.writes.truncate(first);
        }
        // After the loop, its writes are simply earlier in the current iterations.
        self.writes[before..].iter_mut().for_each(|w| w.carried = None);
        self.loops.pop();
    }

    /// Each branch starts from the writes before the conditional; afterwards either may have
    /// run.
    fn branches(&mut self, then_case: &Stmt, else_case: Option<&Stmt>) {
        let before = self.writes.len();
        self.visit_stmt(then_case);
        if let Some(e) = else_case {
            let then_writes = self.writes.split_off(before);
            self.visit_stmt(e);
            self.writes.extend(then_writes);
        }
    }

    fn access(&mut self, buffer: &Buffer, indices: &[Expr], write: bool) {
        let storage = buffer.data().id();
        let clash = self.writes.iter().any(|w| w.buffer.data().id() == storage && !self.apart(w, buffer, indices));
        if clash && self.found.is_none() {
            self.found = Some(Hazard { buffer: buffer.clone(), write, line: self.line });
        }
    }

    /// Whether the access surely touches another element than the earlier write `w`.
    fn apart(&self, w: &Write, buffer: &Buffer, indices: &[Expr]) -> bool {
        if w.buffer != *buffer || !buffer.strides().is_empty() || w.indices.len() != indices.len() {
            return false;
        }
        match w.carried {
            None => {
                w.indices.iter().zip(indices).any(|(a, b)| const_int(a).zip(const_int(b)).is_some_and(|(x, y)| x != y))
            }
            Some(depth) => w.indices == indices && indices.iter().any(|e| self.tells_iterations_apart(e, depth)),
        }
    }

    /// `e` is `a * var + b` for the loop at `depth`, where `b` mentions no variable of a loop
    /// inside that one and no two of its iterations wrap onto one value (an odd `a` never
    /// does: it is invertible modulo any power of two).
    fn tells_iterations_apart(&self, e: &Expr, depth: usize) -> bool {
        let Some(l) = self.loops.get(depth) else { return false };
        let Some(a) = coefficient(e, &l.var, &self.lets).filter(|&a| a != 0) else { return false };
        let span = |n: i64| a.unsigned_abs().checked_mul(n.saturating_sub(1).unsigned_abs());
        let no_wrap = a % 2 != 0 || l.extent.and_then(span).is_some_and(|s| s < 1 << 31);
        no_wrap && self.loops[depth + 1..].iter().all(|inner| !mentions(e, &inner.var, &self.lets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn spec(n: usize) -> PipelineSpec {
        PipelineSpec { stages: vec![0; n], orders: (0..n as i64).collect(), async_stages: BTreeSet::from([0]) }
    }

    /// The statements of the body of the one pipelined loop of `body` (a function body).
    fn statements(body: &str) -> Vec<Stmt> {
        let text = format!(
            "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), C: T.Buffer((16,), \"float32\"), D: T.Buffer((2, 8), \"float32\")):\n    for k0 in range(4):\n{body}"
        );
        let module = tirproof_reader::parse_module(&text).expect("test program parses");
        let Some(StmtKind::For(f)) = module.functions.first().map(|f| &f.body.kind) else {
            return Vec::new();
        };
        match &f.body.kind {
            StmtKind::Seq(items) => items.clone(),
            _ => vec![f.body.clone()],
        }
    }

    fn verdict(body: &str) -> Result<(), String> {
        let stmts = statements(body);
        check_async_statements(&stmts, &spec(stmts.len()))
    }

    #[test]
    fn touching_the_statements_own_pending_write_is_refused() {
        let cases = [
            // Read in the next inner iteration.
            ("        for k1 in range(2):\n            C[0] = C[0] + A[k0 * 2 + k1]\n", "may read `C` (line 7)"),
            // Rewritten in the next inner iteration.
            ("        for k1 in range(2):\n            C[0] = A[k0 * 2 + k1]\n", "may overwrite `C` (line 7)"),
            // Read later in the body.
            ("        if k0 < 4:\n            C[1] = A[k0]\n            C[2] = C[1]\n", "may read `C` (line 8)"),
        ];
        for (body, expected) in cases {
            let err = verdict(body).unwrap_err();
            assert!(err.starts_with(&format!("statement 0 (async stage 0) {expected} after writing")), "{err}");
        }
    }

    #[test]
    fn copies_and_reads_before_the_write_are_accepted() {
        assert_eq!(verdict("        for j in range(4):\n            C[k0 * 4 + j] = C[k0 * 4 + j] + A[j]\n"), Ok(()));
        assert_eq!(verdict("        C[0] = C[0] + A[k0]\n"), Ok(()));
        assert_eq!(verdict("        if k0 < 4:\n            C[1] = A[k0]\n            C[2] = A[k0]\n"), Ok(()));
        let copy_2d =
            "        for i in range(2):\n            for j in range(8):\n                D[i, j] = A[i * 8 + j]\n";
        assert_eq!(verdict(copy_2d), Ok(()));
        assert_eq!(verdict("        for j in range(1):\n            C[0] = C[0] + A[j]\n"), Ok(()));
        // A symbolic extent: `j` alone never wraps onto an earlier value.
        assert_eq!(verdict("        for j in range(k0):\n            C[j] = C[j] * A[j]\n"), Ok(()));
    }

    #[test]
    fn branches_do_not_see_each_others_writes() {
        let body = "        if k0 < 2:\n            C[0] = A[k0]\n        else:\n            C[0] = A[k0 + 1]\n";
        assert_eq!(verdict(body), Ok(()));
    }

    #[test]
    fn an_index_that_also_moves_with_an_inner_loop_is_refused() {
        // `C[i + j]` repeats across iterations of `i` (i = 0, j = 1 and i = 1, j = 0).
        let body = "        for i in range(2):\n            for j in range(2):\n                C[i + j] = A[j]\n";
        assert!(verdict(body).is_err());
    }
}
