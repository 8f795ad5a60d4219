//! The classes of async programs the wait verifier must decide, recognised from a program's IR
//! (not from what a generator meant): a campaign that never makes a class proves nothing
//! about it, so the generator's test asks that every class appears.
//!
//! Recognition is syntactic and errs on the side of naming a class only when the program has
//! the construct the class is about; it says nothing about whether the program is clean.

use std::collections::BTreeSet;
use std::fmt;

use tirproof_ir::async_op::AsyncKey;
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{BinOp, CmpOp, Expr, IRModule, PrimFunc, Stmt, StmtKind, ThreadTag, Var};

/// A class of async program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AsyncClass {
    /// (a) An asynchronous store to shared memory in a `threadIdx` binding at an index that
    /// threads share (`S[0]`, `S[tx // 2]`).
    SharedElementOfThreads,
    /// (b) A wait or a commit outside the `threadIdx` bindings of its function, or outside
    /// every launch.
    SyncOutsideThreads,
    /// (c) Two or more sibling launches, with async operations.
    SeveralLaunches,
    /// (d) An asynchronous store to global memory in a thread or block binding, whose buffer
    /// is read in a binding too.
    GlobalAsyncStore,
    /// (e) A wait or a commit under a condition that reads memory, or a wait count that does.
    DataDependentSync,
    /// (f) A wait or a commit under `v % m == r` or `v % m != r` for `v` a loop variable of a
    /// loop with a symbolic extent.
    PeriodicGuard,
    /// (g) A loop inside a loop whose extent reads memory, with async operations or reads in
    /// its body.
    LoadedLoopBound,
    /// (h) Integer division or modulo by an expression of a scalar parameter.
    DivisionByParameter,
    /// (i) An asynchronous store outside every commit scope.
    UncommittedStore,
    /// (j) An asynchronous store under a condition inside its commit scope: the group is empty
    /// when the condition fails (`cuda_pipeline.h`'s idiom; an empty group left in flight at
    /// the end is no fault, a group holding the store is).
    ConditionalGroup,
}

impl AsyncClass {
    /// Every class, for the test that generation reaches each.
    pub const ALL: [AsyncClass; 10] = [
        AsyncClass::SharedElementOfThreads,
        AsyncClass::SyncOutsideThreads,
        AsyncClass::SeveralLaunches,
        AsyncClass::GlobalAsyncStore,
        AsyncClass::DataDependentSync,
        AsyncClass::PeriodicGuard,
        AsyncClass::LoadedLoopBound,
        AsyncClass::DivisionByParameter,
        AsyncClass::UncommittedStore,
        AsyncClass::ConditionalGroup,
    ];
}

impl fmt::Display for AsyncClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The classes `module` contains.
pub fn classes_of(module: &IRModule) -> BTreeSet<AsyncClass> {
    module.functions.iter().flat_map(classes_of_func).collect()
}

fn classes_of_func(func: &PrimFunc) -> BTreeSet<AsyncClass> {
    let mut facts = Facts::default();
    facts.visit_stmt(&func.body);
    let mut walker = Walker {
        scalars: func.scalar_params().cloned().collect(),
        has_threads: facts.threads,
        has_launches: facts.launches > 0,
        globals_read_in_bindings: facts.globals_read_in_bindings,
        context: Context::default(),
        classes: BTreeSet::new(),
    };
    walker.visit_stmt(&func.body);
    let mut classes = walker.classes;
    if facts.launches >= 2 && facts.async_ops {
        classes.insert(AsyncClass::SeveralLaunches);
    }
    classes
}

/// What the whole function has, gathered before the walk that names classes.
#[derive(Default)]
struct Facts {
    /// Whether some `threadIdx` binding exists.
    threads: bool,
    /// Launches at the top: bindings inside no other binding.
    launches: usize,
    /// Whether any async attribute exists.
    async_ops: bool,
    /// Global buffers loaded inside a binding, by their data variable.
    globals_read_in_bindings: BTreeSet<Var>,
    /// How many bindings enclose the current statement.
    depth: usize,
}

impl Visitor for Facts {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if let StmtKind::Attr(a) = &stmt.kind {
            self.async_ops |= AsyncKey::parse(&a.key).is_some();
        }
        let Some(launch) = stmt.launch() else {
            return walk_stmt(self, stmt);
        };
        self.threads |= launch.tag.is_some_and(|t| t.thread_axis().is_some());
        self.launches += usize::from(self.depth == 0);
        self.depth += 1;
        walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let Expr::Load(load) = expr {
            if self.depth > 0 && load.buffer.scope() == "global" {
                self.globals_read_in_bindings.insert(load.buffer.data().clone());
            }
        }
        walk_expr(self, expr);
    }
}

/// Where the walk is.
#[derive(Clone, Default)]
struct Context {
    /// Variables of the enclosing `threadIdx` bindings.
    thread_vars: Vec<Var>,
    /// Whether a thread or block binding encloses the statement.
    in_binding: bool,
    in_commit: bool,
    /// Under an `if` inside the innermost commit scope.
    condition_in_commit: bool,
    in_async: bool,
    /// Variables of enclosing loops whose extent is symbolic (mentions a variable, loads
    /// nothing).
    symbolic_loops: Vec<Var>,
    /// How many loops enclose the statement.
    loops: usize,
    /// Under an `if` whose condition reads memory.
    data_condition: bool,
    /// Under a periodic guard of a symbolic loop's variable.
    periodic: bool,
    /// In the body of a loop nested in another whose extent reads memory.
    loaded_bound: bool,
}

struct Walker {
    scalars: Vec<Var>,
    has_threads: bool,
    has_launches: bool,
    globals_read_in_bindings: BTreeSet<Var>,
    context: Context,
    classes: BTreeSet<AsyncClass>,
}

impl Walker {
    /// What an async attribute or a store at the current context makes of the program.
    fn async_attr(&mut self, key: AsyncKey, value: &Expr) {
        let c = &self.context;
        if matches!(key, AsyncKey::WaitQueue | AsyncKey::CommitQueue) {
            let outside_threads = self.has_threads && c.thread_vars.is_empty();
            let outside_launches = self.has_launches && !c.in_binding;
            if outside_threads || outside_launches {
                self.classes.insert(AsyncClass::SyncOutsideThreads);
            }
            if c.data_condition {
                self.classes.insert(AsyncClass::DataDependentSync);
            }
            if c.periodic {
                self.classes.insert(AsyncClass::PeriodicGuard);
            }
        }
        if key == AsyncKey::InflightCount && reads_memory(value) {
            self.classes.insert(AsyncClass::DataDependentSync);
        }
        if c.loaded_bound {
            self.classes.insert(AsyncClass::LoadedLoopBound);
        }
    }

    fn store(&mut self, buffer: &tirproof_ir::Buffer, indices: &[Expr]) {
        let c = &self.context;
        if !c.in_async {
            return;
        }
        if !c.in_commit {
            self.classes.insert(AsyncClass::UncommittedStore);
        }
        if c.in_commit && c.condition_in_commit {
            self.classes.insert(AsyncClass::ConditionalGroup);
        }
        let scope = buffer.scope();
        if scope == "global" && c.in_binding && self.globals_read_in_bindings.contains(buffer.data()) {
            self.classes.insert(AsyncClass::GlobalAsyncStore);
        }
        let shared = scope.starts_with("shared");
        if shared && !c.thread_vars.is_empty() && indices.iter().all(|i| !injective_in(i, &c.thread_vars)) {
            self.classes.insert(AsyncClass::SharedElementOfThreads);
        }
    }
}

impl Visitor for Walker {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let saved = self.context.clone();
        match &stmt.kind {
            StmtKind::Attr(a) => {
                if let Some(key) = AsyncKey::parse(&a.key) {
                    self.async_attr(key, &a.value);
                    match key {
                        AsyncKey::CommitQueue => {
                            self.context.in_commit = true;
                            self.context.condition_in_commit = false;
                        }
                        AsyncKey::Scope => self.context.in_async = true,
                        AsyncKey::WaitQueue | AsyncKey::InflightCount | AsyncKey::Tokens => {}
                    }
                }
            }
            StmtKind::Store(s) => self.store(&s.buffer, &s.indices),
            StmtKind::If { cond, .. } => {
                self.context.condition_in_commit |= self.context.in_commit;
                self.context.data_condition |= reads_memory(cond);
                self.context.periodic |= periodic(cond, &self.context.symbolic_loops);
            }
            StmtKind::For(f) => match stmt.launch() {
                Some(launch) => {
                    self.context.in_binding = true;
                    if launch.tag.is_some_and(|t: ThreadTag| t.thread_axis().is_some()) {
                        self.context.thread_vars.push(f.var.clone());
                    }
                }
                None => {
                    let loaded = reads_memory(&f.extent);
                    self.context.loaded_bound |= loaded && self.context.loops > 0;
                    if !loaded && mentions_any_var(&f.extent) {
                        self.context.symbolic_loops.push(f.var.clone());
                    }
                    self.context.loops += 1;
                }
            },
            _ => {}
        }
        if self.context.loaded_bound && !saved.loaded_bound {
            // Reads in the body count as uses too.
            let mut reads = Reads(false);
            reads.visit_stmt(stmt.body().unwrap_or(stmt));
            if reads.0 {
                self.classes.insert(AsyncClass::LoadedLoopBound);
            }
        }
        walk_stmt(self, stmt);
        self.context = saved;
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let Expr::Binary { op, rhs, .. } = expr {
            let divides =
                matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::FloorMod | BinOp::TruncDiv | BinOp::TruncMod);
            if divides && self.scalars.iter().any(|p| mentions(rhs, p)) {
                self.classes.insert(AsyncClass::DivisionByParameter);
            }
        }
        walk_expr(self, expr);
    }
}

/// Whether a statement loads from memory.
struct Reads(bool);

impl Visitor for Reads {
    fn visit_expr(&mut self, expr: &Expr) {
        self.0 |= matches!(expr, Expr::Load(_));
        walk_expr(self, expr);
    }
}

/// Whether `expr` or one of its subexpressions satisfies `holds`.
fn any_subexpr(expr: &Expr, holds: &dyn Fn(&Expr) -> bool) -> bool {
    struct Any<'h>(&'h dyn Fn(&Expr) -> bool, bool);
    impl Visitor for Any<'_> {
        fn visit_expr(&mut self, expr: &Expr) {
            self.1 |= (self.0)(expr);
            walk_expr(self, expr);
        }
    }
    let mut any = Any(holds, false);
    any.visit_expr(expr);
    any.1
}

/// Whether `expr` loads from memory.
pub(crate) fn reads_memory(expr: &Expr) -> bool {
    expr.reads_memory()
}

/// Whether `expr` mentions `var`.
fn mentions(expr: &Expr, var: &Var) -> bool {
    any_subexpr(expr, &|e| matches!(e, Expr::Var(v) if v == var))
}

fn mentions_any_var(expr: &Expr) -> bool {
    any_subexpr(expr, &|e| matches!(e, Expr::Var(_)))
}

/// Whether an index may tell the threads of `thread_vars` apart: it mentions one of them
/// outside a floor division (which merges neighbours).
fn injective_in(index: &Expr, thread_vars: &[Var]) -> bool {
    match index {
        Expr::Binary { op: BinOp::FloorDiv, .. } => false,
        Expr::Var(v) => thread_vars.contains(v),
        Expr::Binary { lhs, rhs, .. } => injective_in(lhs, thread_vars) || injective_in(rhs, thread_vars),
        Expr::Cast { value, .. } => injective_in(value, thread_vars),
        _ => thread_vars.iter().any(|v| mentions(index, v)),
    }
}

/// Whether `cond` holds a comparison `v % m == r` or `v % m != r` of a loop variable `v` of
/// `loops`.
fn periodic(cond: &Expr, loops: &[Var]) -> bool {
    match cond {
        Expr::Cmp { op: CmpOp::Eq | CmpOp::Ne, lhs, rhs } => [lhs, rhs].iter().any(|side| {
            matches!(&***side, Expr::Binary { op: BinOp::FloorMod, lhs, .. } if matches!(&**lhs, Expr::Var(v) if loops.contains(v)))
        }),
        Expr::Logic { lhs, rhs, .. } => periodic(lhs, loops) || periodic(rhs, loops),
        Expr::Not(inner) => periodic(inner, loops),
        _ => false,
    }
}
