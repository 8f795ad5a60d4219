//! The well-formedness checker: scoping and SSA, types and the lanes rule of docs/buffers-and-lanes.md, pipeline
//! annotation shapes, async attributes, loop kinds and thread tags.
//!
//! `check_func` walks a function once, in source order, and collects every error it finds as
//! a `Diagnostic` located at the offending statement (the nearest enclosing statement with a
//! known span, or the function's span for parameters). It never stops at the first error and
//! never panics. Each family of rules lives in its own file; `walk.rs` owns the traversal and
//! calls into them:
//!
//! - `scope.rs`: variables and buffers are bound before use and used only in their scope;
//!   SSA (every variable is bound once);
//! - `types.rs`: operand types, conditions, indices, the lanes rule for loads and stores,
//!   Ramp/Broadcast, loop and buffer-shape types;
//! - `annotations.rs`: the software-pipeline annotations on loops;
//! - `async_attrs.rs`: `async_scope`, commit and wait scopes and in-flight counts;
//! - `loops.rs`: loop kinds, thread tags and the extents they require.
//!
//! Invariants: diagnostics come out in walk order, which is source order; a statement's tail
//! (the body that is "the rest of the block" of a let, allocation, declaration, attribute,
//! loop, launch or block, and the last item of a sequence) is walked iteratively, so long
//! straight-line programs do not deepen the recursion; other nesting is capped at
//! `walk::MAX_DEPTH`.

mod annotations;
mod async_attrs;
mod loops;
mod scope;
mod types;
mod walk;

#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Diagnostics};
use crate::func::{IRModule, PrimFunc};
use crate::span::Span;

/// Checks every function of `module` and returns all errors found, function by function.
pub fn check_module(module: &IRModule) -> Diagnostics {
    let mut all = Diagnostics::new();
    for func in &module.functions {
        all.0.extend(check_func(func).0);
    }
    all
}

/// Checks one function and returns all errors found, in source order.
pub fn check_func(func: &PrimFunc) -> Diagnostics {
    let mut cx = Checker::new(func.span);
    cx.func(func);
    cx.finish()
}

/// The state of one function's check.
struct Checker {
    diags: Vec<Diagnostic>,
    scope: scope::Scope,
    /// The span errors are reported at: the innermost statement with a known span.
    span: Span,
    /// Current recursion depth of the walk (see `walk::MAX_DEPTH`).
    depth: usize,
    too_deep: bool,
}

impl Checker {
    fn new(span: Span) -> Self {
        Checker { diags: Vec::new(), scope: scope::Scope::default(), span, depth: 0, too_deep: false }
    }

    fn error(&mut self, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(self.span, message));
    }

    fn finish(mut self) -> Diagnostics {
        self.resolve_undefined();
        Diagnostics(self.diags)
    }
}

/// "1 index", "2 indices".
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
