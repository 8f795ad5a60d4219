//! Compiling thread bindings, async attribute chains and S-TIR blocks.
//!
//! Launches (docs/async-semantics.md, "Threads"): the outermost `blockIdx.*` or
//! `threadIdx.*` binding (loop or launch) is a kernel launch (`RegionStart` .. `RegionEnd`);
//! its extents, and those of every binding nested in it, are evaluated where the launch
//! starts, so the grid's and the block's shapes are known before any thread runs. Every
//! statement inside runs in every thread of every block; each binding just reads the
//! thread's (`threadIdx`) or the block's (`blockIdx`) coordinate, and a binding of smaller
//! extent than its axis skips its body where the coordinate is beyond it.
//!
//! Async chains: directly nested async attributes, in any order, act as one construct:
//! wait (if `async_wait_queue_scope` + `async_wait_inflight_count`), then the body (async if
//! `async_scope`), then commit (if `async_commit_queue_scope`). A key that appears again
//! further in starts a nested chain inside the body (a wait on a second queue, say). Block annotations written
//! with `T.attr({...})` are the same chain around the block body.

use tirproof_ir::async_op::{decode_annotations, AsyncChain, AsyncOps};
use tirproof_ir::expr::{CmpOp, Expr, LogicOp};
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{Block, IterKind, Stmt};
use tirproof_ir::var::Var;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::Launch;

use super::{ill, CResult, Compiler};
use crate::program::{
    CExpr, CmpNode, Coord, CtxKind, Ins, LogicNode, RegionIns, ThreadBindIns, WaitTokensIns, NO_STMT,
};
use tirproof_machine::error::ExecError;
use tirproof_machine::value::Num;

/// Collects the coordinate and extent of every `threadIdx.*` and `blockIdx.*` binding in a
/// statement.
#[derive(Default)]
struct BindingScan {
    found: Vec<(Coord, Expr)>,
}

impl Visitor for BindingScan {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if let Some(launch) = stmt.launch() {
            if let Some(coord) = Coord::of(launch.written) {
                self.found.push((coord, launch.extent.clone()));
            }
        }
        walk_stmt(self, stmt);
    }
}

impl Compiler {
    /// A thread binding (`T.thread_binding` loop or `T.launch_thread`). The outermost one
    /// is a kernel launch: every statement inside it runs in every thread of every block.
    pub(super) fn binding(&mut self, launch: Launch<'_>, span: Span) -> CResult<()> {
        let Launch { var, written: tag, min, extent, body, .. } = launch;
        let zero = Expr::int_of(0, var.dtype());
        let min_expr = min.unwrap_or(&zero);
        let Some(coord) = Coord::of(tag) else {
            return self.serial_loop(var, min_expr, extent, body, span, CtxKind::Loop);
        };
        if self.in_region {
            return self.coord_bind(var, tag, coord, min_expr, extent, body, span);
        }
        let id = self.stmt_id(span);
        let mut scan = BindingScan::default();
        scan.found.push((coord, extent.clone()));
        scan.visit_stmt(body);
        let mut threads: [Vec<(CExpr, Num)>; 3] = Default::default();
        let mut blocks: [Vec<(CExpr, Num)>; 3] = Default::default();
        for (c, e) in &scan.found {
            let compiled = self.int_expr(e, "a launch extent").map_err(|err| match err {
                ExecError::IllFormed(m) if m.contains("outside its scope") => ExecError::Unsupported(format!(
                    "a thread or block extent that depends on variables bound inside the kernel launch ({m})"
                )),
                other => other,
            })?;
            match *c {
                Coord::Thread(axis) => threads[axis].push(compiled),
                Coord::Block(axis) => blocks[axis].push(compiled),
            }
        }
        let start = self.emit(Ins::RegionStart(Box::new(RegionIns { stmt: id, extents: threads, blocks, end: 0 })));
        self.in_region = true;
        let result = self.coord_bind(var, tag, coord, min_expr, extent, body, span);
        self.in_region = false;
        result?;
        let end = self.emit(Ins::RegionEnd);
        self.patch(start, end);
        Ok(())
    }

    #[expect(clippy::too_many_arguments, reason = "the parts of a binding statement, passed through once")]
    fn coord_bind(
        &mut self,
        var: &Var,
        tag: &str,
        coord: Coord,
        min: &Expr,
        extent: &Expr,
        body: &Stmt,
        span: Span,
    ) -> CResult<()> {
        let id = self.stmt_id(span);
        let (min, min_num) = self.int_expr(min, "a thread binding minimum")?;
        let (extent, extent_num) = self.int_expr(extent, "a thread extent")?;
        let mark = self.scope.mark();
        let (slot, num) = self.bind_int_var(var)?;
        let at = self.emit(Ins::ThreadBind(Box::new(ThreadBindIns {
            stmt: id,
            slot,
            num,
            coord,
            min,
            min_num,
            extent,
            extent_num,
            skip: 0,
        })));
        let kind = match coord {
            Coord::Thread(_) => CtxKind::Thread(tag.to_string()),
            Coord::Block(_) => CtxKind::Block(tag.to_string()),
        };
        let outer = self.push_ctx(var, slot, num, kind);
        let result = self.stmt(body);
        self.ctx = outer;
        result?;
        let end = self.pc();
        self.patch(at, end);
        self.scope.restore(mark);
        Ok(())
    }

    /// A chain of directly nested async attributes around one body (`async_op::decode_chain`
    /// says which attributes form it); each attribute costs one unit of fuel.
    pub(super) fn async_chain(&mut self, chain: &AsyncChain<'_>, span: Span) -> CResult<()> {
        let ops = chain.ops().map_err(|e| ill(e.to_string()))?;
        let attrs = u32::try_from(chain.links.len()).unwrap_or(u32::MAX);
        let body = chain.body;
        self.async_scoped(&ops, attrs, span, |c| c.stmt(body))
    }

    /// Wait, then `body` (async if the chain has `async_scope`), then commit.
    fn async_scoped(
        &mut self,
        ops: &AsyncOps,
        attrs: u32,
        span: Span,
        body: impl FnOnce(&mut Self) -> CResult<()>,
    ) -> CResult<()> {
        let id = self.tick(span, attrs);
        if let Some(wait) = &ops.wait {
            let (queue, queue_num) = self.int_expr(&wait.queue, "an async queue")?;
            if wait.tokens().is_empty() {
                let count = wait.inflight().ok_or_else(|| ExecError::IllFormed("a wait without a count".into()))?;
                let (count, count_num) = self.int_expr(count, "an in-flight count")?;
                self.emit(Ins::Wait { stmt: id, queue, queue_num, count, count_num });
            } else {
                let count = wait.inflight().map(|c| self.int_expr(c, "an in-flight count")).transpose()?;
                let tokens = wait.tokens().iter().map(|t| self.int_expr(t, "a token")).collect::<CResult<Vec<_>>>()?;
                let queue = (queue, queue_num);
                self.emit(Ins::WaitTokens(Box::new(WaitTokensIns { stmt: id, queue, count, tokens })));
            }
        }
        let outer = self.in_async;
        if ops.asynchronous {
            self.in_async = true;
        }
        let result = body(self);
        self.in_async = outer;
        result?;
        if let Some(q) = &ops.commit {
            let (queue, queue_num) = self.int_expr(q, "an async queue")?;
            self.emit(Ins::Commit { stmt: id, queue, queue_num });
        }
        Ok(())
    }

    /// An S-TIR block: bind iteration variables, test `T.where`, allocate, run the init
    /// statement on the first reduction iteration, run the body inside its async chain.
    pub(super) fn block(&mut self, b: &Block, span: Span) -> CResult<()> {
        let id = self.tick(span, 1);
        let mark = self.scope.mark();
        // Bindings are expressions of the enclosing loops: compile them all before binding.
        let values =
            b.iter_vars.iter().map(|iv| self.int_expr(&iv.binding, "a block binding")).collect::<CResult<Vec<_>>>()?;
        let mut first_reduction = Vec::new();
        for (iv, (value, _)) in b.iter_vars.iter().zip(values) {
            let (slot, num) = self.bind_int_var(&iv.var)?;
            self.emit(Ins::SetScalar { stmt: NO_STMT, slot, value });
            if iv.kind == IterKind::Reduce {
                let (min, _) = self.int_expr(&iv.min, "a block iteration minimum")?;
                first_reduction.push(CExpr::Cmp(Box::new(CmpNode {
                    op: CmpOp::Eq,
                    num,
                    lanes: 1,
                    lhs: CExpr::Slot(slot),
                    rhs: min,
                })));
            }
        }
        let skip = match &b.predicate {
            Some(p) => {
                let (cond, cond_num) = self.condition(p)?;
                Some(self.emit(Ins::Branch { stmt: id, cond, cond_num, target: 0 }))
            }
            None => None,
        };
        let mut frees = Vec::new();
        for alloc in &b.alloc_buffers {
            let data = self.alloc_buffer(&alloc.buffer, id)?;
            frees.push((data, self.in_region && !super::stmt::is_local_scope(alloc.buffer.scope())));
        }
        let ops = decode_annotations(&b.annotations).map_err(|e| ill(e.to_string()))?.unwrap_or_default();
        self.async_scoped(&ops, 0, span, |c| {
            if let Some(init) = &b.init {
                c.block_init(init, first_reduction, id)?;
            }
            c.stmt(&b.body)
        })?;
        for (data, per_block) in frees.into_iter().rev() {
            self.emit(Ins::Free { data, per_block });
        }
        if let Some(at) = skip {
            let end = self.pc();
            self.patch(at, end);
        }
        self.scope.restore(mark);
        Ok(())
    }

    /// `with T.init():` runs when every reduction variable is at its minimum.
    fn block_init(&mut self, init: &Stmt, checks: Vec<CExpr>, stmt: u32) -> CResult<()> {
        let cond = checks
            .into_iter()
            .reduce(|lhs, rhs| CExpr::Logic(Box::new(LogicNode { op: LogicOp::And, lanes: 1, lhs, rhs })));
        let Some(cond) = cond else {
            return self.stmt(init);
        };
        let branch = self.emit(Ins::Branch { stmt, cond, cond_num: Num::Bool, target: 0 });
        self.stmt(init)?;
        let end = self.pc();
        self.patch(branch, end);
        Ok(())
    }
}
