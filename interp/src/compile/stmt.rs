//! Compiling statements to instructions: stores, lets, loops, conditionals, sequences,
//! attributes, allocations, declarations, evaluation and barriers.
//!
//! Each statement gets a statement id (its span and enclosing loops, for fault reports) and
//! costs one unit of fuel when executed; sequences are free. A loop whose body executes no
//! statement still costs one per iteration, so every loop terminates under a fuel budget.

use tirproof_ir::async_op::decode_chain;
use tirproof_ir::buffer::Buffer;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{Allocate, AttrStmt, BufferStore, For, Stmt, StmtKind};
use tirproof_ir::var::Var;
use tirproof_ir::Launch;

use super::{ill, CResult, Compiler, VarSlot};
use crate::program::{AllocIns, AllocSize, CExpr, CtxKind, Ins, LoopIns, StoreIns};
use tirproof_machine::error::ExecError;
use tirproof_machine::memory::Visibility;
use tirproof_machine::value::Num;

/// Per-thread storage scopes (everything else is shared by the threads of a block).
pub(super) fn is_local_scope(scope: &str) -> bool {
    scope.starts_with("local") || scope.starts_with("wmma")
}

/// Which threads see a storage of `scope`: one thread (local), one block (shared and other
/// on-chip scopes), or all (global).
fn visibility_of(scope: &str) -> Visibility {
    if is_local_scope(scope) {
        Visibility::Thread
    } else if scope.is_empty() || scope == "global" {
        Visibility::Device
    } else {
        Visibility::Block
    }
}

/// `T.evaluate(T.tvm_storage_sync("shared"))`, in case a barrier arrives as a call.
fn is_sync_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if c.name.trim_start_matches("T.") == "tvm_storage_sync")
}

impl Compiler {
    pub(super) fn stmt(&mut self, s: &Stmt) -> CResult<()> {
        if s.span.is_known() {
            self.line = s.span.line;
        }
        match &s.kind {
            StmtKind::Store(store) => self.store(store, s.span),
            StmtKind::Let { var, value, body } => self.let_stmt(var, value, body, s.span),
            StmtKind::For(f) => match f.launch() {
                Some(launch) => self.binding(launch, s.span),
                None => self.for_stmt(f, s.span),
            },
            StmtKind::If { cond, then_case, else_case } => self.if_stmt(cond, then_case, else_case.as_deref(), s.span),
            StmtKind::Seq(stmts) => stmts.iter().try_for_each(|st| self.stmt(st)),
            StmtKind::Attr(attr) => self.attr(attr, s.span),
            StmtKind::Allocate(alloc) => self.allocate(alloc, s.span),
            StmtKind::AllocBuffer { buffer, body, .. } => {
                let id = self.stmt_id(s.span);
                let mark = self.scope.mark();
                let data = self.alloc_buffer(buffer, id)?;
                self.stmt(body)?;
                self.emit(Ins::Free { data, per_block: self.per_block(buffer.scope()) });
                self.scope.restore(mark);
                Ok(())
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let id = self.stmt_id(s.span);
                self.emit(Ins::Tick { stmt: id, n: 1 });
                let layout = self.layout_ins(buffer)?;
                self.emit(Ins::Materialize(Box::new(layout)));
                self.stmt(body)
            }
            StmtKind::Evaluate(e) => {
                let id = self.stmt_id(s.span);
                if is_sync_call(e) {
                    self.emit(Ins::Barrier { stmt: id });
                } else if e.is_const() {
                    self.emit(Ins::Tick { stmt: id, n: 1 });
                } else {
                    let value = self.expr(e)?;
                    self.emit(Ins::Eval { stmt: id, value });
                }
                Ok(())
            }
            StmtKind::Barrier { .. } => {
                let id = self.stmt_id(s.span);
                self.emit(Ins::Barrier { stmt: id });
                Ok(())
            }
            StmtKind::LaunchThread { var, tag, extent, body } => {
                self.binding(Launch::of_launch_thread(var, tag, extent, body), s.span)
            }
            StmtKind::Block(block) => self.block(block, s.span),
        }
    }

    fn store(&mut self, store: &BufferStore, span: Span) -> CResult<()> {
        let id = self.stmt_id(span);
        let access = self.access(&store.buffer, &store.indices)?;
        let lanes = self.access_lanes(&store.buffer, &access)?;
        let expected = store.buffer.dtype().with_lanes(lanes);
        if store.value.dtype() != expected {
            return Err(ill(format!(
                "store of a {} value into `{}`, whose access has type {expected}",
                store.value.dtype(),
                store.buffer
            )));
        }
        let value = self.expr(&store.value)?;
        self.emit(Ins::Store(Box::new(StoreIns { stmt: id, access, value, is_async: self.in_async })));
        Ok(())
    }

    fn let_stmt(&mut self, var: &Var, value: &Expr, body: &Stmt, span: Span) -> CResult<()> {
        let id = self.stmt_id(span);
        if var.dtype() != value.dtype() {
            return Err(ill(format!("`{var}` of type {} is bound to a value of type {}", var.dtype(), value.dtype())));
        }
        let compiled = self.expr(value)?;
        let mark = self.scope.mark();
        match self.bind_var(var)? {
            VarSlot::Scalar(slot, _) => self.emit(Ins::SetScalar { stmt: id, slot, value: compiled }),
            VarSlot::Vector(slot, _, _) => self.emit(Ins::SetVector { stmt: id, slot, value: compiled }),
            VarSlot::Data(_) => return Err(ExecError::Unsupported(format!("let-bound pointer `{var}`"))),
        };
        self.stmt(body)?;
        self.scope.restore(mark);
        Ok(())
    }

    /// A loop that binds no thread (those are launches, compiled by `binding`).
    fn for_stmt(&mut self, f: &For, span: Span) -> CResult<()> {
        self.serial_loop(&f.var, &f.min, &f.extent, &f.body, span, CtxKind::Loop)
    }

    /// A loop run one iteration after another (serial, unrolled, vectorized, parallel,
    /// virtual threads, and blocks of threads, which run one after another).
    pub(super) fn serial_loop(
        &mut self,
        var: &Var,
        min: &Expr,
        extent: &Expr,
        body: &Stmt,
        span: Span,
        kind: CtxKind,
    ) -> CResult<()> {
        let id = self.stmt_id(span);
        let (min, min_num) = self.int_expr(min, "a loop minimum")?;
        let (extent, extent_num) = self.int_expr(extent, "a loop extent")?;
        let mark = self.scope.mark();
        let (var_slot, num) = self.bind_int_var(var)?;
        let end = self.new_scalar();
        let init = self.emit(Ins::LoopInit(Box::new(LoopIns {
            stmt: id,
            var: var_slot,
            end,
            num,
            min,
            min_num,
            extent,
            extent_num,
            exit: 0,
        })));
        let body_start = self.pc();
        let outer = self.push_ctx(var, var_slot, num, kind);
        let counted = self.counted;
        self.stmt(body)?;
        if self.counted == counted {
            self.emit(Ins::Tick { stmt: id, n: 1 });
        }
        self.ctx = outer;
        self.emit(Ins::LoopNext { var: var_slot, end, body: body_start });
        let exit = self.pc();
        self.patch(init, exit);
        self.scope.restore(mark);
        Ok(())
    }

    fn if_stmt(&mut self, cond: &Expr, then_case: &Stmt, else_case: Option<&Stmt>, span: Span) -> CResult<()> {
        let id = self.stmt_id(span);
        let (cond, cond_num) = self.condition(cond)?;
        let branch = self.emit(Ins::Branch { stmt: id, cond, cond_num, target: 0 });
        self.stmt(then_case)?;
        match else_case {
            Some(else_case) => {
                let jump = self.emit(Ins::Jump { target: 0 });
                let else_start = self.pc();
                self.patch(branch, else_start);
                self.stmt(else_case)?;
                let end = self.pc();
                self.patch(jump, end);
            }
            None => {
                let end = self.pc();
                self.patch(branch, end);
            }
        }
        Ok(())
    }

    /// A scalar condition of any non-handle kind (tested for `!= 0`).
    pub(super) fn condition(&mut self, cond: &Expr) -> CResult<(CExpr, Num)> {
        let dtype = cond.dtype();
        match Num::of(dtype) {
            Some(num) if dtype.lanes == 1 => Ok((self.expr(cond)?, num)),
            _ => Err(ill(format!("a condition must be a scalar, not {dtype}"))),
        }
    }

    fn attr(&mut self, attr: &AttrStmt, span: Span) -> CResult<()> {
        if let Some(chain) = decode_chain(attr) {
            return self.async_chain(&chain, span);
        }
        // Other attributes (pragmas, storage alignment, ...) have no run-time meaning here.
        let id = self.stmt_id(span);
        self.emit(Ins::Tick { stmt: id, n: 1 });
        self.stmt(&attr.body)
    }

    fn per_block(&self, scope: &str) -> bool {
        self.in_region && !is_local_scope(scope)
    }

    fn allocate(&mut self, alloc: &Allocate, span: Span) -> CResult<()> {
        let id = self.stmt_id(span);
        let num = Num::of(alloc.dtype)
            .ok_or_else(|| ExecError::Unsupported(format!("allocation of type {}", alloc.dtype)))?;
        let extents = alloc
            .extents
            .iter()
            .map(|e| Ok(self.int_expr(e, "an allocation extent")?.0))
            .collect::<CResult<Vec<_>>>()?;
        let mark = self.scope.mark();
        let data = self.new_data();
        self.scope.bind(&alloc.data, VarSlot::Data(data));
        let per_block = self.per_block(&alloc.scope);
        self.emit(Ins::Alloc(Box::new(AllocIns {
            stmt: id,
            data,
            name: alloc.data.name().to_string(),
            num,
            size: AllocSize::Extents { extents, lanes: alloc.dtype.lanes },
            per_block,
            visibility: visibility_of(&alloc.scope),
        })));
        self.materialize_implicit(&alloc.data)?;
        self.stmt(&alloc.body)?;
        self.emit(Ins::Free { data, per_block });
        self.scope.restore(mark);
        Ok(())
    }

    /// Allocates storage for `buffer` (binding its data variable in the current scope) and
    /// declares it; returns the data slot. The caller restores the scope and frees.
    pub(super) fn alloc_buffer(&mut self, buffer: &Buffer, stmt: u32) -> CResult<u32> {
        let data = self.new_data();
        self.scope.bind(buffer.data(), VarSlot::Data(data));
        let layout = self.layout_ins(buffer)?;
        let num = Num::of(buffer.dtype())
            .ok_or_else(|| ExecError::Unsupported(format!("buffer `{buffer}` of type {}", buffer.dtype())))?;
        self.emit(Ins::Alloc(Box::new(AllocIns {
            stmt,
            data,
            name: buffer.name().to_string(),
            num,
            size: AllocSize::Buffer(layout),
            per_block: self.per_block(buffer.scope()),
            visibility: visibility_of(buffer.scope()),
        })));
        self.materialize_implicit(buffer.data())?;
        Ok(data)
    }

    /// A statement that only costs fuel (used by blocks and attribute chains).
    pub(super) fn tick(&mut self, span: Span, n: u32) -> u32 {
        let id = self.stmt_id(span);
        if n > 0 {
            self.emit(Ins::Tick { stmt: id, n });
        }
        id
    }
}
