//! Splitting a pipelined loop's body into its statements.
//!
//! The body may be a plain sequence, or wrapped in allocations (`T.alloc_buffer` inside the
//! loop) and in an S-TIR block that allocates the staging buffers (`with T.sblock("compute"):`
//! with `T.sblock_alloc_buffer`). Wrappers are peeled from the outside in until a level has as
//! many statements as the annotations have entries; the buffers they allocate are the loop's
//! local buffers, which the pass hoists (and versions where needed). A `LetStmt` wrapper is
//! inlined into the statements below it, since those may end up in different stages.

use std::borrow::Cow;

use tirproof_ir::expr::Expr;
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{Annotations, Buffer, Stmt, StmtKind};

/// A buffer allocated inside the pipelined loop.
#[derive(Clone, Debug)]
pub struct LocalBuffer {
    pub buffer: Buffer,
    pub annotations: Annotations,
}

#[derive(Clone, Debug)]
pub struct LoopBody<'a> {
    /// The statements, borrowed from the loop unless a `LetStmt` wrapper was inlined.
    pub stmts: Cow<'a, [Stmt]>,
    pub locals: Vec<LocalBuffer>,
}

/// Splits `body` into `n` statements, or says what was found instead. Wrappers are looked
/// through in place, and the statements are borrowed from the loop (the pass copies them per
/// iteration anyway): only a `LetStmt` wrapper's substitution makes new ones.
pub fn split_body(body: &Stmt, n: usize) -> Result<LoopBody<'_>, String> {
    let mut locals = Vec::new();
    let mut current = Cow::Borrowed(body);
    let mut seen = Vec::new();
    loop {
        let count = match &current.kind {
            StmtKind::Seq(items) => items.len(),
            _ => 1,
        };
        seen.push(count);
        if count == n {
            return Ok(LoopBody { stmts: flatten(current), locals });
        }
        let inner = match current {
            Cow::Borrowed(stmt) => peel(stmt, &mut locals)?,
            // Only a `LetStmt` wrapper's substitution makes a new statement; rare, so its
            // inner part is copied out.
            Cow::Owned(stmt) => peel(&stmt, &mut locals)?.map(|inner| Cow::Owned(inner.into_owned())),
        };
        current = match inner {
            Some(inner) => inner,
            None => break,
        };
    }
    let levels: Vec<String> = seen.iter().map(usize::to_string).collect();
    Err(format!(
        "the annotations describe {n} statements, but the loop body has {} (looking through allocations and the body block)",
        levels.join(" or ")
    ))
}

fn flatten(stmt: Cow<'_, Stmt>) -> Cow<'_, [Stmt]> {
    match stmt {
        Cow::Borrowed(Stmt { kind: StmtKind::Seq(items), .. }) => Cow::Borrowed(items),
        Cow::Borrowed(single) => Cow::Borrowed(std::slice::from_ref(single)),
        Cow::Owned(Stmt { kind: StmtKind::Seq(items), .. }) => Cow::Owned(items),
        Cow::Owned(single) => Cow::Owned(vec![single]),
    }
}

/// Looks through one wrapper around a single statement; `None` when there is nothing to peel.
fn peel<'a>(stmt: &'a Stmt, locals: &mut Vec<LocalBuffer>) -> Result<Option<Cow<'a, Stmt>>, String> {
    match &stmt.kind {
        StmtKind::AllocBuffer { buffer, annotations, body } => {
            locals.push(LocalBuffer { buffer: buffer.clone(), annotations: annotations.clone() });
            Ok(Some(Cow::Borrowed(body)))
        }
        StmtKind::Let { var, value, body } => {
            if contains_load(value) {
                return Err(format!(
                    "the loop body binds `{var}` to a value that reads memory; its statements cannot be split across stages"
                ));
            }
            let mut subst = Substitution::new().var(var, value.clone());
            Ok(Some(Cow::Owned(subst.stmt(body))))
        }
        StmtKind::Block(block) if block.iter_vars.is_empty() && block.init.is_none() => {
            if block.predicate.is_some() {
                return Err(format!(
                    "the body block `{}` has a T.where predicate; move it onto the statements inside",
                    block.name
                ));
            }
            locals.extend(
                block
                    .alloc_buffers
                    .iter()
                    .map(|a| LocalBuffer { buffer: a.buffer.clone(), annotations: a.annotations.clone() }),
            );
            Ok(Some(Cow::Borrowed(&block.body)))
        }
        _ => Ok(None),
    }
}

fn contains_load(e: &Expr) -> bool {
    struct Finder(bool);
    impl Visitor for Finder {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 |= matches!(e, Expr::Load(_) | Expr::Call(_));
            walk_expr(self, e);
        }
    }
    let mut f = Finder(false);
    f.visit_expr(e);
    f.0
}

/// The first statement of an async stage that stores nothing: an async stage holds copies, and
/// a commit group around no store is ill-formed.
pub fn async_without_store(stmts: &[Stmt], is_async: impl Fn(usize) -> bool) -> Option<usize> {
    struct Stores(bool);
    impl Visitor for Stores {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            self.0 |= matches!(stmt.kind, StmtKind::Store(_));
            tirproof_ir::visit::walk_stmt(self, stmt);
        }
    }
    (0..stmts.len()).find(|&k| {
        let mut stores = Stores(false);
        stores.visit_stmt(&stmts[k]);
        is_async(k) && !stores.0
    })
}
