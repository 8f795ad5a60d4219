//! Lowering of statement lists and of the plain statements: stores, lets, `if`, `with`
//! dispatch, `T.evaluate` and barriers.
//!
//! A statement list is folded iteratively: statements that scope over the rest of their list
//! (`x: T.int32 = e`, bare `T.attr(...)`, `x = T.allocate(...)`, ...) are kept pending and
//! wrap everything after them when the list ends, so a long list of lets needs no recursion.
//! Several statements become a `Seq` (`Stmt::seq`), one stays itself. Invariants: a name is
//! bound after its value is lowered (`x = x + 1` reads the outer `x`); a definition whose
//! lowering failed binds the name as poisoned, so its uses do not cascade into new errors.

use tirproof_ir::buffer::{BufferSpec, SCOPE_LOCAL, SCOPE_SHARED};
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{BufferStore, Stmt, StmtKind};
use tirproof_ir::var::Var;

use super::ast::{Ident, PExpr, PExprKind, PIndex, PStmt, PStmtKind};
use super::binder::{Binder, Scoped};
use super::literal::dtype_of_name;
use super::lower::Lowerer;
use super::scope::{scalar_indices, Binding};
use super::stream::{Finish, Frame};

/// A statement list being built: statements since the last binder, and the binders still
/// waiting for their bodies (with the statements before each).
#[derive(Default)]
pub(super) struct ListState {
    pending: Vec<(Vec<Stmt>, Binder, Span, u32)>,
    current: Vec<Stmt>,
}

/// What one statement contributes to its list.
pub(super) enum Lowered {
    Stmt(Stmt),
    /// Scopes over the rest of the list.
    Binder(Binder, Span),
    Nothing,
}

/// Nests the branches of an `if`/`elif` chain from the last one outwards.
fn fold_branches(branches: Vec<(Expr, Stmt, Span)>, else_case: Option<Stmt>, span: Span) -> Stmt {
    let mut else_case = else_case.map(Box::new);
    for (index, (cond, then_case, cond_span)) in branches.into_iter().enumerate().rev() {
        let at = if index == 0 { span } else { cond_span };
        let kind = StmtKind::If { cond, then_case: Box::new(then_case), else_case: else_case.take() };
        else_case = Some(Box::new(Stmt::new(kind, at)));
    }
    else_case.map_or_else(Stmt::nop, |stmt| *stmt)
}

impl Lowerer {
    /// A nested statement list: a new scope frame, one IR level deeper.
    pub fn suite(&mut self, stmts: &[PStmt], span: Span) -> Stmt {
        if !self.enter(1, span) {
            return Stmt::nop();
        }
        self.scopes.push();
        let body = self.list(stmts);
        self.scopes.pop();
        self.leave(1);
        body
    }

    /// A statement list in the current scope frame. Nested blocks recurse through here,
    /// `stmt` and the compound statements, so these keep small frames.
    pub fn list(&mut self, stmts: &[PStmt]) -> Stmt {
        let mut state = ListState::default();
        for stmt in stmts {
            self.list_stmt(stmt, &mut state);
        }
        self.fold(state)
    }

    /// Lowers the next statement of a list being built.
    pub fn list_stmt(&mut self, stmt: &PStmt, state: &mut ListState) {
        let lowered = self.stmt(stmt);
        self.absorb(lowered, state);
    }

    /// Adds one lowered statement to the list being built.
    pub fn absorb(&mut self, lowered: Lowered, state: &mut ListState) {
        match lowered {
            Lowered::Stmt(s) => state.current.push(s),
            Lowered::Binder(binder, span) => {
                let levels = binder.levels();
                if self.enter(levels, span) {
                    let before = std::mem::take(&mut state.current);
                    state.pending.push((before, binder, span, levels));
                }
            }
            Lowered::Nothing => {}
        }
    }

    /// Wraps each pending binder around everything after it, innermost first.
    pub fn fold(&mut self, state: ListState) -> Stmt {
        let ListState { mut pending, current } = state;
        let mut body = Stmt::seq(current);
        while let Some((mut before, binder, span, levels)) = pending.pop() {
            self.leave(levels);
            before.push(binder.wrap(span, body));
            body = Stmt::seq(before);
        }
        body
    }

    pub fn stmt(&mut self, s: &PStmt) -> Lowered {
        match &s.kind {
            PStmtKind::Pass => Lowered::Nothing,
            PStmtKind::Expr(e) => self.expr_stmt(e, s.span),
            PStmtKind::Assign { target, value } => self.assign(target, value, s.span),
            PStmtKind::AnnAssign { name, ann, value } => self.ann_assign(name, ann, value.as_ref(), s.span),
            PStmtKind::For { targets, iter, body } => self.for_loop(targets, iter, body, s.span),
            PStmtKind::If { branches, else_body } => self.if_stmt(branches, else_body.as_deref(), s.span),
            PStmtKind::With { item, targets, body } => self.with_stmt(item, targets, body, s.span),
        }
    }

    fn expr_stmt(&mut self, e: &PExpr, span: Span) -> Lowered {
        if matches!(e.kind, PExprKind::Str(_)) {
            // A docstring.
            return Lowered::Nothing;
        }
        let Some((callee, args, kwargs)) = e.as_call() else {
            return Lowered::Stmt(Stmt::new(StmtKind::Evaluate(self.expr(e)), span));
        };
        match callee.as_str() {
            "T.evaluate" => match self.exact_args(&callee, e.span, args, kwargs, 1) {
                Some([arg]) => self.evaluate(arg, span),
                _ => Lowered::Nothing,
            },
            "T.tvm_storage_sync" => self.barrier(&callee, e.span, args, kwargs, span),
            "T.func_attr" | "T.match_buffer" => {
                self.not_at_function_start(&callee, e.span);
                Lowered::Nothing
            }
            "T.where" | "T.reads" | "T.writes" | "T.sblock_attr" => {
                self.misplaced_header(&callee, e.span);
                Lowered::Nothing
            }
            _ => match self.scoped_call(e, None) {
                Scoped::Binder { binder, .. } => Lowered::Binder(binder, span),
                Scoped::Failed => Lowered::Nothing,
                Scoped::NotMine => Lowered::Stmt(Stmt::new(StmtKind::Evaluate(self.expr(e)), span)),
            },
        }
    }

    /// `T.evaluate(e)`; `T.evaluate(T.tvm_storage_sync("shared"))` is the barrier.
    fn evaluate(&mut self, arg: &PExpr, span: Span) -> Lowered {
        if let Some((callee, args, kwargs)) = arg.as_call() {
            if callee == "T.tvm_storage_sync" {
                return self.barrier(&callee, arg.span, args, kwargs, span);
            }
        }
        Lowered::Stmt(Stmt::new(StmtKind::Evaluate(self.expr(arg)), span))
    }

    fn barrier(
        &mut self,
        callee: &str,
        call_span: Span,
        args: &[PExpr],
        kwargs: &[super::ast::Kwarg],
        span: Span,
    ) -> Lowered {
        // TVM 0.27 prints the barrier with its two other arguments: whether it is a barrier of
        // the whole grid, and how many blocks take part (`T.bool(False), -1`).
        let count = if args.len() == 3 { 3 } else { 1 };
        let Some(args) = self.exact_args(callee, call_span, args, kwargs, count) else {
            return Lowered::Nothing;
        };
        let scope = &args[0];
        if let [_, grid, blocks] = args {
            let grid_wide = self.expr(grid);
            self.expr(blocks);
            if grid_wide.as_int() != Some(0) {
                self.error(
                    grid.span,
                    "a barrier of the whole grid is not modelled",
                    "`T.bool(False)` (a barrier of the threads of one block)",
                    grid.describe(),
                );
                return Lowered::Nothing;
            }
        }
        match self.string_arg(scope, "the barrier scope") {
            Some(scope) => Lowered::Stmt(Stmt::new(StmtKind::Barrier { scope }, span)),
            None => Lowered::Nothing,
        }
    }

    pub fn not_at_function_start(&mut self, callee: &str, span: Span) {
        self.error(
            span,
            format!("`{callee}` must be at the start of the function body"),
            "a statement",
            format!("`{callee}` here"),
        );
    }

    /// A block header form (`T.where`, ...) outside a block header.
    pub fn misplaced_header(&mut self, callee: &str, span: Span) {
        if self.blocks == 0 {
            self.error(
                span,
                format!("`{callee}` outside a block"),
                "a statement (this form belongs in a `with T.sblock(...)` header)",
                format!("`{callee}`"),
            );
        } else {
            self.error(
                span,
                format!("`{callee}` must come before the body of its block"),
                "a body statement",
                format!("`{callee}`"),
            );
        }
    }

    fn assign(&mut self, target: &PExpr, value: &PExpr, span: Span) -> Lowered {
        match &target.kind {
            PExprKind::Subscript { value: base, items } => self.store(base, items, value, span),
            PExprKind::Name(name) => {
                let ident = Ident { name: name.clone(), span: target.span };
                self.assign_name(&ident, value, span)
            }
            PExprKind::Tuple(_) => {
                if let Some((callee, ..)) = value.as_call().filter(|(c, ..)| c.starts_with("T.axis.")) {
                    self.misplaced_header(&callee, value.span);
                } else {
                    self.error(target.span, "cannot unpack into several names here", "one name", "a tuple");
                }
                Lowered::Nothing
            }
            _ => {
                let found = target.describe();
                self.error(target.span, format!("cannot assign to {found}"), "a name or `buffer[indices]`", found);
                Lowered::Nothing
            }
        }
    }

    /// `A[indices] = value`; a bare literal value takes the element type.
    fn store(&mut self, base: &PExpr, items: &[PIndex], value: &PExpr, span: Span) -> Lowered {
        let Some(buffer) = self.subscript_buffer(base, "store to") else {
            self.expr(value);
            return Lowered::Nothing;
        };
        let indices = self.indices(&buffer, items, base.span);
        let index_lanes = indices.last().map_or(1, |i| i.dtype().lanes);
        let elem = buffer.dtype();
        let dtype = elem.with_lanes(elem.lanes.saturating_mul(index_lanes));
        let value = self.expr_as(value, dtype);
        Lowered::Stmt(Stmt::new(StmtKind::Store(BufferStore { buffer, indices, value }), span))
    }

    fn assign_name(&mut self, name: &Ident, value: &PExpr, span: Span) -> Lowered {
        if let Some((callee, args, kwargs)) = value.as_call() {
            match callee.as_str() {
                "T.env_thread" => return self.env_thread(name, value.span, args, kwargs),
                "T.local_scalar" | "T.shared_scalar" => {
                    let scope = if callee == "T.local_scalar" { SCOPE_LOCAL } else { SCOPE_SHARED };
                    let dtype = match args {
                        [ty] if kwargs.is_empty() => ty.dotted().and_then(|d| dtype_of_name(&d)),
                        _ => None,
                    };
                    let Some(dtype) = dtype else {
                        self.error(
                            value.span,
                            format!("`{callee}` takes one type"),
                            "a type such as `T.float32`",
                            value.describe(),
                        );
                        return self.poison(name);
                    };
                    return self.scalar(name, dtype, scope, None, span);
                }
                "T.match_buffer" | "T.func_attr" => {
                    self.not_at_function_start(&callee, value.span);
                    return self.poison(name);
                }
                "T.sblock_alloc_buffer"
                | "T.axis.spatial"
                | "T.axis.reduce"
                | "T.axis.S"
                | "T.axis.R"
                | "T.axis.remap" => {
                    self.misplaced_header(&callee, value.span);
                    return self.poison(name);
                }
                _ => {}
            }
            if let Some(dtype) = dtype_of_name(&callee).filter(|_| args.is_empty()) {
                // `n = T.int32()`: a fresh variable (a symbolic shape, bound by a buffer).
                self.scopes.bind(&name.name, Binding::Var(Var::new(name.name.clone(), dtype)));
                return Lowered::Nothing;
            }
            match self.scoped_call(value, Some(name)) {
                Scoped::Binder { binder, bind } => {
                    if let Some((bound_name, binding)) = bind {
                        self.scopes.bind(&bound_name, binding);
                    }
                    return Lowered::Binder(binder, span);
                }
                Scoped::Failed => return self.poison(name),
                Scoped::NotMine => {}
            }
        }
        if let Some(Binding::Buffer(buffer)) = self.scopes.lookup(&name.name).filter(|b| b.is_scalar_buffer()).cloned()
        {
            // TVM's scalar: `x = e` stores into the buffer `x` stands for.
            let value = self.expr_as(value, buffer.dtype());
            if value.dtype() != buffer.dtype() {
                self.error(
                    span,
                    format!("type mismatch in the store to `{}`", name.name),
                    format!("a value of type {}", buffer.dtype()),
                    format!("type {}", value.dtype()),
                );
            }
            let indices = scalar_indices(&buffer);
            return Lowered::Stmt(Stmt::new(StmtKind::Store(BufferStore { buffer, indices, value }), span));
        }
        let value = self.expr(value);
        let var = Var::new(name.name.clone(), value.dtype());
        self.scopes.bind(&name.name, Binding::Var(var.clone()));
        Lowered::Binder(Binder::Let { var, value }, span)
    }

    /// TVM's scalar: a one-element buffer of `scope` named `name` (which then stands for its
    /// element), stored `value` first when there is one.
    fn scalar(&mut self, name: &Ident, dtype: DataType, scope: &str, value: Option<Expr>, span: Span) -> Lowered {
        let buffer = BufferSpec::new(name.name.clone(), dtype, vec![Expr::int(1)], scope).build();
        self.scopes.bind(&name.name, Binding::Buffer(buffer.clone()));
        Lowered::Binder(Binder::Scalar { buffer, value }, span)
    }

    pub fn poison(&mut self, name: &Ident) -> Lowered {
        self.scopes.bind(&name.name, Binding::Poison);
        Lowered::Nothing
    }

    /// `x: T.let[T.int32] = e` (a let binding), and TVM's scalars: `x: T.int32 = e` and
    /// `x: T.int32`, a one-element local buffer (initialized to `e`) that `x` then stands for.
    fn ann_assign(&mut self, name: &Ident, ann: &PExpr, value: Option<&PExpr>, span: Span) -> Lowered {
        let is_let =
            matches!(&ann.kind, PExprKind::Subscript { value, .. } if value.dotted().as_deref() == Some("T.let"));
        let Some(dtype) = self.let_type(ann) else {
            if let Some(value) = value {
                self.expr(value);
            }
            return self.poison(name);
        };
        let value = value.map(|v| self.expr_as(v, dtype));
        if let Some(value) = value.as_ref().filter(|v| v.dtype() != dtype) {
            self.error(
                span,
                format!("type mismatch in the definition of `{}`", name.name),
                format!("a value of type {dtype}"),
                format!("type {}", value.dtype()),
            );
        }
        if !is_let {
            return self.scalar(name, dtype, SCOPE_LOCAL, value, span);
        }
        let Some(value) = value else {
            self.error(span, "a let binding needs a value", "`= value`", "nothing");
            return self.poison(name);
        };
        let var = Var::new(name.name.clone(), dtype);
        self.scopes.bind(&name.name, Binding::Var(var.clone()));
        Lowered::Binder(Binder::Let { var, value }, span)
    }

    fn let_type(&mut self, ann: &PExpr) -> Option<DataType> {
        let inner = match &ann.kind {
            PExprKind::Subscript { value, items } if value.dotted().as_deref() == Some("T.let") => {
                match items.as_slice() {
                    [PIndex::Point(inner)] => inner,
                    _ => ann,
                }
            }
            _ => ann,
        };
        let dtype = inner.dotted().and_then(|d| dtype_of_name(&d));
        if dtype.is_none() {
            self.error(
                ann.span,
                "expected a type annotation",
                "a type such as `T.int32` or `T.let[T.int32]`",
                ann.describe(),
            );
        }
        dtype
    }

    /// `if` / `elif` / `else`: each `elif` is an `If` in the `else` of the previous one.
    fn if_stmt(&mut self, branches: &[(PExpr, Vec<PStmt>)], else_body: Option<&[PStmt]>, span: Span) -> Lowered {
        let extra = u32::try_from(branches.len().saturating_sub(1)).unwrap_or(u32::MAX);
        if !self.enter(extra, span) {
            return Lowered::Nothing;
        }
        let mut lowered = Vec::with_capacity(branches.len());
        for (cond, body) in branches {
            self.branch_into(cond, body, &mut lowered);
        }
        let else_case = else_body.map(|body| self.suite(body, span));
        self.leave(extra);
        Lowered::Stmt(fold_branches(lowered, else_case, span))
    }

    fn branch_into(&mut self, cond: &PExpr, body: &[PStmt], out: &mut Vec<(Expr, Stmt, Span)>) {
        let cond_value = self.expr(cond);
        let then_case = self.suite(body, cond.span);
        out.push((cond_value, then_case, cond.span));
    }

    fn with_stmt(&mut self, item: &PExpr, targets: &[Ident], body: &[PStmt], span: Span) -> Lowered {
        if is_block(item) {
            self.with_targets(targets, span);
            let frame = self.open_block(item, span);
            return self.lower_opened(frame, body);
        }
        let frame = self.open_with(item, targets, span);
        self.lower_opened(frame, body)
    }

    /// `with` binds at most one name (blocks included).
    pub fn with_targets(&mut self, targets: &[Ident], span: Span) {
        if targets.len() > 1 {
            self.error(span, "`with` binds at most one name here", "`as name`", format!("{} names", targets.len()));
        }
    }

    /// Lowers the header of a `with` that is not a block (`T.attr`, `T.allocate(...) as x`,
    /// `T.launch_thread`, ...) and binds its name for the body.
    pub fn open_with(&mut self, item: &PExpr, targets: &[Ident], span: Span) -> Frame {
        self.with_targets(targets, span);
        if item.as_call().is_some_and(|(callee, ..)| callee == "T.init") {
            self.misplaced_header("T.init", item.span);
            return Frame::skip(0);
        }
        let target = targets.first();
        match self.scoped_call(item, target) {
            Scoped::Binder { binder, bind } => {
                let levels = binder.levels();
                if !self.enter(levels, span) {
                    return Frame::skip(0);
                }
                self.scopes.push();
                if let Some((name, binding)) = bind {
                    self.scopes.bind(&name, binding);
                }
                Frame::lower(1, levels, Finish::Wrap(binder, span))
            }
            Scoped::Failed => {
                // The body is still lowered, with the name poisoned, for its own errors.
                self.scopes.push();
                if let Some(target) = target {
                    self.poison(target);
                }
                Frame::lower(1, 0, Finish::Nothing)
            }
            Scoped::NotMine => {
                self.error(
                    item.span,
                    "unsupported `with` statement",
                    "`T.sblock`, `T.attr`, `T.allocate`, `T.alloc_buffer`, `T.decl_buffer`, `T.launch_thread` or `T.LetStmt`",
                    item.describe(),
                );
                Frame::skip(0)
            }
        }
    }
}

/// `with T.sblock(...)` (or the older `T.block`): lowered whole, header first.
pub(super) fn is_block(item: &PExpr) -> bool {
    item.as_call().is_some_and(|(callee, ..)| matches!(callee.as_str(), "T.sblock" | "T.block"))
}
