//! Structural equality and hashing modulo renaming of bound variables and buffers.
//!
//! Two trees are equal when they differ only in the identity (and name) of the variables and
//! buffers they bind. Binding sites — parameters, loop, let, iteration and launch variables,
//! allocated data variables, the data variables of buffers, and buffer declarations (parameter
//! buffers, `AllocBuffer`, `DeclBuffer`, block allocations) — are walked in parallel and build a
//! bijection between the two sides; every later use must agree with it. The bijection is global
//! to one function, not scoped, so binding two different variables where the other side binds
//! one variable twice is a difference. Variables and buffers that are never bound (free) compare
//! by identity. Names and spans never take part; everything else (types, values, operators,
//! loop kinds, thread tags, annotation keys, values and order, attribute keys, block names,
//! storage scopes, shapes, strides, offsets) does. Floats compare by bit pattern.
//!
//! Sequences are compared after flattening (`Seq[Seq[a, b], c]` is `Seq[a, b, c]`, `Seq[a]` is
//! `a`), since the text format cannot tell them apart and TVM flattens them on construction.
//! `T.evaluate(0)` is a no-op and compares like the empty sequence (the printer writes an
//! empty body as `T.evaluate(0)`, which parses back as an evaluation).
//!
//! Invariant: `x == y` implies `hash(x) == hash(y)`. The hash numbers binding occurrences in
//! walk order (de Bruijn-like) with the same walk as the equality, and uses a fixed hasher, so
//! it is deterministic across runs for closed terms (free variables hash by name and type).

mod eq;
mod hash;

pub use hash::FxHasher;

/// A hash map keyed by identities (`VarId`, `BufferId`: small integers), hashed with
/// [`FxHasher`]: a seeded SipHash costs more than the work of the walks that look them up.
pub type IdMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// The set form of [`IdMap`].
pub type IdSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<FxHasher>>;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use crate::expr::Expr;
use crate::func::{IRModule, PrimFunc};
use crate::stmt::{Stmt, StmtKind};

/// Whether two modules are equal modulo renaming (see the module documentation).
pub fn module_eq(a: &IRModule, b: &IRModule) -> bool {
    module_diff(a, b).is_none()
}

/// Whether two functions are equal modulo renaming of what they bind.
pub fn func_eq(a: &PrimFunc, b: &PrimFunc) -> bool {
    eq::EqCx::new().func(a, b)
}

/// Whether two statements are equal modulo renaming of what they bind; free variables and
/// buffers compare by identity.
pub fn stmt_eq(a: &Stmt, b: &Stmt) -> bool {
    eq::EqCx::new().stmt(a, b)
}

/// Whether two expressions are equal modulo renaming of `Let` variables.
pub fn expr_eq(a: &Expr, b: &Expr) -> bool {
    eq::EqCx::new().expr(a, b)
}

/// The first difference between two functions, as `path: left vs right`
/// (e.g. `body.seq[2].for.extent: 15 vs 16`), or `None` when they are equal.
pub fn func_diff(a: &PrimFunc, b: &PrimFunc) -> Option<String> {
    let mut cx = eq::EqCx::new();
    if cx.func(a, b) {
        None
    } else {
        Some(cx.into_diff())
    }
}

/// The first difference between two modules (functions are compared pairwise, in order).
pub fn module_diff(a: &IRModule, b: &IRModule) -> Option<String> {
    if a.class_name != b.class_name {
        return Some(format!("class_name: {:?} vs {:?}", a.class_name, b.class_name));
    }
    if a.functions.len() != b.functions.len() {
        return Some(format!("functions: {} functions vs {}", a.functions.len(), b.functions.len()));
    }
    a.functions
        .iter()
        .zip(&b.functions)
        .enumerate()
        .find_map(|(i, (fa, fb))| func_diff(fa, fb).map(|d| format!("functions[{i}].{d}")))
}

/// The first difference between two statements, like `func_diff`.
pub fn stmt_diff(a: &Stmt, b: &Stmt) -> Option<String> {
    let mut cx = eq::EqCx::new();
    if cx.stmt(a, b) {
        None
    } else {
        Some(cx.into_diff())
    }
}

/// A hash of `func` that agrees with `func_eq`.
pub fn func_hash(func: &PrimFunc) -> u64 {
    let mut cx = hash::HashCx::new();
    cx.func(func);
    cx.finish()
}

/// A hash of `module` that agrees with `module_eq`.
pub fn module_hash(module: &IRModule) -> u64 {
    let mut h = hash::FxHasher::default();
    std::hash::Hash::hash(&module.class_name, &mut h);
    std::hash::Hash::hash(&module.functions.len(), &mut h);
    for f in &module.functions {
        std::hash::Hasher::write_u64(&mut h, func_hash(f));
    }
    std::hash::Hasher::finish(&h)
}

/// A hash of `stmt` that agrees with `stmt_eq`.
pub fn stmt_hash(stmt: &Stmt) -> u64 {
    let mut cx = hash::HashCx::new();
    cx.stmt(stmt);
    cx.finish()
}

/// A hash of `expr` that agrees with `expr_eq`.
pub fn expr_hash(expr: &Expr) -> u64 {
    let mut cx = hash::HashCx::new();
    cx.expr(expr);
    cx.finish()
}

/// One step of a path into a tree, for `func_diff`.
#[derive(Clone, Copy, Debug)]
enum Seg {
    Field(&'static str),
    Index(usize),
}

fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Field(name) if out.is_empty() => out.push_str(name),
            Seg::Field(name) => {
                out.push('.');
                out.push_str(name);
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    if out.is_empty() {
        out.push_str("<root>");
    }
    out
}

/// A statement seen through sequence flattening: either one non-sequence statement or the
/// flattened items of a sequence (never a sequence of exactly one item).
enum View<'a> {
    One(&'a Stmt),
    Seq(Vec<&'a Stmt>),
}

fn view(stmt: &Stmt) -> View<'_> {
    if !matches!(stmt.kind, StmtKind::Seq(_)) && !is_noop(stmt) {
        return View::One(stmt);
    }
    let mut items = Vec::new();
    flatten_into(stmt, &mut items);
    match items[..] {
        [one] => View::One(one),
        _ => View::Seq(items),
    }
}

/// Pushes the non-sequence leaves of `stmt` in order, iteratively so that deep nesting of
/// sequences cannot exhaust the stack.
fn flatten_into<'a>(stmt: &'a Stmt, out: &mut Vec<&'a Stmt>) {
    let mut stack = vec![stmt];
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Seq(items) => stack.extend(items.iter().rev()),
            _ if is_noop(s) => {}
            _ => out.push(s),
        }
    }
}

/// `T.evaluate(0)`.
fn is_noop(stmt: &Stmt) -> bool {
    matches!(&stmt.kind, StmtKind::Evaluate(crate::Expr::Int { value: 0, .. }))
}
