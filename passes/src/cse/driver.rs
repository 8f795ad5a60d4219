//! The walk of a function: every statement is a scope (except where a binding may not go), and
//! inside expressions every `Let` body and every lazy `if_then_else` arm is a scope.
//!
//! Each scope is first placed (`scope`), then the walk enters its children with the context
//! extended by the binders it crosses (loop, let, launch, allocation and block variables), as
//! TVM's mutator does after its own placement.
//!
//! Placements that would decide nothing are not run (`scope::Outcome`): a statement that only
//! wraps a body (a buffer declaration or allocation, a thread launch) performs exactly what its
//! body does, so when its placement decided nothing, neither would the body's, as long as the
//! context is the same for what they perform and the body does not start with a let (whose
//! value the placement treats apart); and when a placement decided nothing with every class
//! performed once, no statement among those it scanned would decide anything.
//!
//! Where no binding may go: the body of an attribute (`async_scope` must scope over its store,
//! wait attributes over what they guard) and the body of a loop the pipeline pass will
//! transform (its statements are counted by its annotations), down through the allocations and
//! the block that wrap those statements. Bindings for such bodies are placed in the enclosing
//! scope or in the statements inside.

use tirproof_ir::annotation::PIPELINE_STAGE;
use tirproof_ir::{Expr, PrimFunc, Stmt, StmtKind};

use super::context::Context;
use super::eligible::for_each_child_mut;
use super::names::Names;
use super::scope::{Outcome, Placer, Scratch, Stats};
use super::strategy::Strategy;

/// Runs CSE with `strategy` on `func`.
pub fn run_func(func: &mut PrimFunc, strategy: &mut dyn Strategy) -> Stats {
    strategy.begin_func(func);
    let mut walk = Walk {
        placer: Placer { strategy, names: Names::for_func(func), stats: Stats::default(), scratch: Scratch::default() },
        ctx: Context::for_func(func),
    };
    let body = std::mem::replace(&mut func.body, Stmt::nop());
    func.body = walk.stmt(body, true, Outcome::Unknown);
    walk.placer.stats
}

struct Walk<'s> {
    placer: Placer<'s>,
    ctx: Context,
}

impl Walk<'_> {
    /// Places `s` (unless `wrapper`, the outcome of an enclosing statement, says the placement
    /// would decide nothing), then enters its children.
    fn stmt(&mut self, mut s: Stmt, may_bind: bool, wrapper: Outcome) -> Stmt {
        let outcome = match wrapper {
            Outcome::Settled { single: true, .. } => wrapper,
            Outcome::Settled { .. } if !matches!(s.kind, StmtKind::Let { .. }) => wrapper,
            _ if may_bind => self.placer.place(&mut s, &mut self.ctx),
            _ => Outcome::Unknown,
        };
        self.children(&mut s, may_bind, outcome);
        s
    }

    fn sub(&mut self, s: &mut Stmt, may_bind: bool) {
        self.sub_wrapped(s, may_bind, Outcome::Unknown);
    }

    fn sub_wrapped(&mut self, s: &mut Stmt, may_bind: bool, wrapper: Outcome) {
        let taken = std::mem::replace(s, Stmt::nop());
        *s = self.stmt(taken, may_bind, wrapper);
    }

    /// Enters the children of `s`; the body of an allocation or of a block without iteration
    /// variables may bind only where `s` itself may (`wrapped`), since those wrap the statements
    /// of a pipelined loop body; `outcome` is how the placement of `s` ended.
    fn children(&mut self, s: &mut Stmt, wrapped: bool, outcome: Outcome) {
        let mark = self.ctx.mark();
        match &mut s.kind {
            StmtKind::Store(store) => {
                store.indices.iter_mut().for_each(|i| self.expr(i));
                self.expr(&mut store.value);
            }
            StmtKind::Let { var, value, body } => {
                self.expr(value);
                self.ctx.push(var, Some(value));
                self.sub_wrapped(body, true, outcome.within());
            }
            StmtKind::For(f) => {
                self.expr(&mut f.min);
                self.expr(&mut f.extent);
                self.ctx.push(&f.var, None);
                let pipelined = f.annotations.get(PIPELINE_STAGE).is_some();
                self.sub_wrapped(&mut f.body, !pipelined, outcome.within());
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.expr(cond);
                self.sub(then_case, true);
                if let Some(e) = else_case {
                    self.sub(e, true);
                }
            }
            StmtKind::Seq(items) => items.iter_mut().for_each(|item| self.sub_wrapped(item, true, outcome.within())),
            StmtKind::Evaluate(e) => self.expr(e),
            StmtKind::Attr(a) => self.sub_wrapped(&mut a.body, false, outcome.within()),
            StmtKind::Allocate(a) => {
                self.ctx.push(&a.data, None);
                self.sub_wrapped(&mut a.body, wrapped, outcome.across(&a.data));
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                self.ctx.push(buffer.data(), None);
                self.sub_wrapped(body, wrapped, outcome.across(buffer.data()));
            }
            StmtKind::DeclBuffer { body, .. } => self.sub_wrapped(body, wrapped, outcome),
            StmtKind::LaunchThread { var, body, .. } => {
                self.ctx.push(var, None);
                self.sub_wrapped(body, true, outcome.across(var));
            }
            StmtKind::Block(block) => {
                for iv in &block.iter_vars {
                    self.ctx.push(&iv.var, None);
                }
                for alloc in &block.alloc_buffers {
                    self.ctx.push(alloc.buffer.data(), None);
                }
                if let Some(init) = &mut block.init {
                    self.sub(init, true);
                }
                self.sub(&mut block.body, wrapped || !block.iter_vars.is_empty());
            }
            StmtKind::Barrier { .. } => {}
        }
        self.ctx.restore(mark);
    }

    /// Enters the scopes inside an expression: `Let` bodies and lazy arms.
    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Let { var, value, body } => {
                self.expr(value);
                let mark = self.ctx.mark();
                self.ctx.push(var, Some(value));
                self.scope(body);
                self.ctx.restore(mark);
            }
            Expr::IfThenElse { cond, on_true, on_false } => {
                self.expr(cond);
                self.scope(on_true);
                self.scope(on_false);
            }
            _ => for_each_child_mut(e, |c, _| self.expr(c)),
        }
    }

    fn scope(&mut self, e: &mut Expr) {
        self.placer.place(e, &mut self.ctx);
        self.expr(e);
    }
}
