//! `strip-async-tokens`: from waits that carry tokens to what the hardware runs.
//!
//! By now every wait has an in-flight count (`lower-async-tokens` writes one next to each
//! wait's tokens, or a program was written with both). Tokens next to a count are a claim that
//! the verifier and the interpreter check and nothing else reads, so this pass drops them, and
//! with them what only fed them: stores into `local` buffers that nothing loads any more (a
//! ring of tokens), those buffers' allocations, and `let`s of tokens that nothing uses.
//!
//! Invariant: the output has no `async_wait_tokens` and no token-making call. Where that
//! cannot be had (a wait on tokens alone, a token used as a value that something reads), the
//! pass refuses with the location; it never drops a wait, a count or a store something reads.
//! Run it after the claims were checked (`tirproof verify` of `lower-async-tokens`' output):
//! past this pass the counts are all that is left.

use std::collections::HashSet;

use tirproof_ir::async_op::{decode_annotations, decode_chain, decode_token_op, AsyncKey};
use tirproof_ir::visit::{walk_expr, walk_stmt, walk_stmt_mut, MutVisitor, Visitor};
use tirproof_ir::{Diagnostic, Expr, PrimFunc, Span, Stmt, StmtKind, VarId};

use crate::{FunctionPass, FunctionReport};

pub struct StripAsyncTokens;

impl FunctionPass for StripAsyncTokens {
    const NAME: &'static str = "strip-async-tokens";
    const DESCRIPTION: &'static str =
        "drop the tokens next to in-flight counts (a checked claim) and the token stores only they read";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        FunctionReport::unless(strip_func(func))
    }
}

/// Strips the token claims of `func` and what fed only them; returns the problems found.
pub fn strip_func(func: &mut PrimFunc) -> Vec<Diagnostic> {
    let mut claims = DropClaims { errors: Vec::new(), span: func.span };
    claims.mutate_stmt(&mut func.body);
    if !claims.errors.is_empty() {
        return claims.errors;
    }
    // Dropping a store can leave a `let` or a buffer unused, and the reverse: to a fixed
    // point (each round removes something or stops).
    loop {
        let used = Uses::of(&func.body);
        let mut dead = DropDead { used, removed: 0 };
        dead.mutate_stmt(&mut func.body);
        if dead.removed == 0 {
            break;
        }
    }
    let mut left = TokenCalls { found: Vec::new(), span: func.span };
    left.visit_stmt(&func.body);
    left.found
        .into_iter()
        .map(|span| {
            Diagnostic::error(
                span,
                "a token is used as a value that the program reads (not only in a wait's claim): it cannot be stripped"
                    .to_string(),
            )
        })
        .collect()
}

/// Drops `async_wait_tokens` from every wait that has a count; a wait on tokens alone is an
/// error.
struct DropClaims {
    errors: Vec<Diagnostic>,
    span: Span,
}

impl MutVisitor for DropClaims {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        match &mut stmt.kind {
            StmtKind::Attr(attr) if AsyncKey::parse(&attr.key) == Some(AsyncKey::WaitQueue) => {
                let counted = decode_chain(attr).and_then(|c| c.ops().ok()).and_then(|ops| ops.wait);
                match counted {
                    Some(wait) if !wait.tokens().is_empty() && wait.inflight().is_none() => {
                        self.errors.push(alone(self.span));
                    }
                    Some(wait) if !wait.tokens().is_empty() => remove_tokens_attr(&mut attr.body),
                    _ => {}
                }
            }
            StmtKind::Block(block) => {
                let tokens = AsyncKey::Tokens.as_str();
                if block.annotations.get(tokens).is_some() {
                    match decode_annotations(&block.annotations) {
                        Ok(Some(ops)) if ops.wait.as_ref().is_some_and(|w| w.inflight().is_some()) => {
                            block.annotations.remove(tokens);
                        }
                        _ => self.errors.push(alone(self.span)),
                    }
                }
            }
            _ => {}
        }
        walk_stmt_mut(self, stmt);
    }
}

fn alone(span: Span) -> Diagnostic {
    Diagnostic::error(span, "a wait on tokens alone has no count to keep: run `lower-async-tokens` first".to_string())
}

/// Replaces the `async_wait_tokens` attribute of the chain that starts at `stmt` (the chain's
/// attributes nest directly) by its body.
fn remove_tokens_attr(stmt: &mut Stmt) {
    let StmtKind::Attr(attr) = &mut stmt.kind else { return };
    match AsyncKey::parse(&attr.key) {
        Some(AsyncKey::Tokens) => {
            let body = std::mem::replace(&mut attr.body, Box::new(Stmt::nop()));
            *stmt = *body;
        }
        Some(_) => remove_tokens_attr(&mut attr.body),
        None => {}
    }
}

/// The storage the function loads from or hands out, and the variables it reads.
#[derive(Default)]
struct Uses {
    loaded: HashSet<VarId>,
    vars: HashSet<VarId>,
}

impl Uses {
    fn of(body: &Stmt) -> Uses {
        let mut uses = Uses::default();
        uses.visit_stmt(body);
        uses
    }
}

impl Visitor for Uses {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Load(load) => {
                self.loaded.insert(load.buffer.data().id());
            }
            Expr::Var(v) => {
                self.vars.insert(v.id());
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// Removes stores of tokens into `local` buffers nothing loads, allocations of `local`
/// buffers nothing accesses any more, and `let`s of tokens nothing reads.
struct DropDead {
    used: Uses,
    removed: usize,
}

impl MutVisitor for DropDead {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
        let replacement = match &mut stmt.kind {
            StmtKind::Store(store)
                if store.buffer.scope() == "local"
                    && !self.used.loaded.contains(&store.buffer.data().id())
                    && has_token_call(&store.value) =>
            {
                Some(Stmt::nop())
            }
            StmtKind::Let { var, value, body } if has_token_call(value) && !self.used.vars.contains(&var.id()) => {
                Some(std::mem::replace(body.as_mut(), Stmt::nop()))
            }
            StmtKind::AllocBuffer { buffer, body, .. }
                if buffer.scope() == "local" && !accesses(body, buffer.data().id()) =>
            {
                Some(std::mem::replace(body.as_mut(), Stmt::nop()))
            }
            _ => None,
        };
        if let Some(replacement) = replacement {
            *stmt = replacement;
            self.removed += 1;
        }
    }
}

/// Whether `e` calls a token-making function.
fn has_token_call(e: &Expr) -> bool {
    struct Found(bool);
    impl Visitor for Found {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Call(call) = e {
                self.0 |= decode_token_op(call).is_some();
            }
            walk_expr(self, e);
        }
    }
    let mut found = Found(false);
    found.visit_expr(e);
    found.0
}

/// Whether anything in `body` loads or stores storage `data`.
fn accesses(body: &Stmt, data: VarId) -> bool {
    struct Access {
        data: VarId,
        found: bool,
    }
    impl Visitor for Access {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let StmtKind::Store(store) = &s.kind {
                self.found |= store.buffer.data().id() == self.data;
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::Load(load) => self.found |= load.buffer.data().id() == self.data,
                Expr::Var(v) => self.found |= v.id() == self.data,
                _ => {}
            }
            walk_expr(self, e);
        }
    }
    let mut access = Access { data, found: false };
    access.visit_stmt(body);
    access.found
}

/// The places token-making calls are left.
struct TokenCalls {
    found: Vec<Span>,
    span: Span,
}

impl Visitor for TokenCalls {
    fn visit_stmt(&mut self, s: &Stmt) {
        if s.span.is_known() {
            self.span = s.span;
        }
        walk_stmt(self, s);
    }
    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Call(call) = e {
            if decode_token_op(call).is_some() {
                self.found.push(self.span);
            }
        }
        walk_expr(self, e);
    }
}
