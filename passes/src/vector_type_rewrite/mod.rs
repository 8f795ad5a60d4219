//! `vector-type-rewrite`: stride-1 Ramp accesses into scalar buffers become accesses into a
//! vector-typed alias (docs/buffers-and-lanes.md):
//! `A[T.Ramp(4 * k, 1, 4)]` becomes `A_vec[k]` with
//! `A_vec = T.decl_buffer((n // 4,), "float32x4", data=A.data)`.
//!
//! Width: an `N`-lane Ramp uses the widest power-of-two width `M` dividing `N` whose vector
//! fits 16 bytes. With `M == N` the alias is read with a scalar index (`M` lanes); otherwise
//! with `Ramp(k, 1, N / M)`, which the lanes table of docs/buffers-and-lanes.md types as `N / M * M = N` lanes — so an
//! access keeps its type either way.
//!
//! Only when it is provably exact (`multiple.rs`): the Ramp base is a multiple of `M`; the
//! buffer has a scalar, non-bool element type, no explicit strides (or a unit one), a constant
//! element offset that is a multiple of `M`, and — with more than one dimension — a constant
//! last extent that is a multiple of `M` (so every row starts on a vector). Other accesses are
//! left alone, with a note for `--explain`.
//!
//! Invariants: the alias is declared right inside the declaration of the buffer it views
//! (the body's top for parameters), so it is in scope wherever that buffer is; one alias per
//! buffer and width; accesses keep their type, so the output needs no cast (an access that
//! would, for instance a vector-typed value stored through a scalar index of another width,
//! is a checker error naming both types).

mod multiple;

use std::collections::{HashMap, HashSet};

use tirproof_ir::index_arith::{const_int, imm};
use tirproof_ir::print::print_expr;
use tirproof_ir::visit::{walk_expr, walk_expr_mut, walk_stmt, walk_stmt_mut, MutVisitor, Visitor};
use tirproof_ir::{Buffer, BufferId, BufferSpec, DataType, Diagnostic, Expr, PrimFunc, Span, Stmt, StmtKind};

use crate::{FunctionPass, FunctionReport};
use multiple::{divide, is_multiple, Lets};

/// The widest vector the rewrite builds, in bits (16 bytes, one 128-bit access).
const MAX_VECTOR_BITS: u32 = 128;

pub struct VectorTypeRewrite;

impl FunctionPass for VectorTypeRewrite {
    const NAME: &'static str = "vector-type-rewrite";
    const DESCRIPTION: &'static str =
        "rewrite stride-1 Ramp accesses into scalar buffers as scalar-index accesses into vector-typed aliases";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        Ok(FunctionReport::notes(rewrite_func(func)))
    }
}

/// Rewrites `func`; returns the notes on accesses left alone.
pub fn rewrite_func(func: &mut PrimFunc) -> Vec<String> {
    let mut facts = Facts::default();
    facts.declared.extend(func.param_buffers().map(Buffer::id));
    facts.visit_stmt(&func.body);
    let mut r = Rewriter { facts, aliases: HashMap::new(), notes: Vec::new(), span: func.span };
    r.mutate_stmt(&mut func.body);
    let params: Vec<Buffer> = func.param_buffers().cloned().collect();
    for buffer in params.iter().rev() {
        r.declare(buffer, &mut func.body);
    }
    r.notes
}

/// The let bindings and declared buffers of a function.
#[derive(Default)]
struct Facts {
    lets: Lets,
    declared: HashSet<BufferId>,
}

impl Visitor for Facts {
    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Let { var, value, .. } = e {
            self.lets.insert(var.id(), (**value).clone());
        }
        walk_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { var, value, .. } => {
                self.lets.insert(var.id(), value.clone());
            }
            // Only declarations the rewriter can put an alias in: not block allocations
            // (the block's init would be outside the alias).
            StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } => {
                self.declared.insert(buffer.id());
            }
            _ => {}
        }
        walk_stmt(self, s);
    }
}

struct Rewriter {
    facts: Facts,
    /// The aliases built so far, per viewed buffer, with their width.
    aliases: HashMap<BufferId, Vec<(u16, Buffer)>>,
    notes: Vec<String>,
    span: Span,
}

impl Rewriter {
    /// Rewrites one access in place when it is a provably exact stride-1 Ramp access.
    fn access(&mut self, buffer: &mut Buffer, indices: &mut [Expr]) {
        let Some(Expr::Ramp { base, stride, lanes }) = indices.last() else { return };
        if const_int(stride) != Some(1) || *lanes < 2 {
            return;
        }
        let (base, lanes) = ((**base).clone(), *lanes);
        let verdict = vector_width(buffer.dtype(), lanes)
            .ok_or_else(|| "no vector type of 2 or more lanes fits 16 bytes".to_string())
            .and_then(|m| eligible(buffer, m, &base, &self.facts));
        let m = match verdict {
            Ok(m) => m,
            Err(why) => {
                let at = print_ramp(&base, lanes);
                let note = format!("{}: access to `{buffer}` at `{at}` left alone: {why}", self.span);
                // A load and a store of one element in one statement say the same thing once.
                if self.notes.last() != Some(&note) {
                    self.notes.push(note);
                }
                return;
            }
        };
        let index = divide(&base, u64::from(m), &self.facts.lets);
        let new_last = if m == lanes { index } else { Expr::ramp(index.clone(), imm(1, index.dtype()), lanes / m) };
        let alias = self.alias(buffer, m);
        *buffer = alias;
        if let Some(last) = indices.last_mut() {
            *last = new_last;
        }
    }

    /// The alias of `buffer` with `m`-lane elements, built on first use.
    fn alias(&mut self, buffer: &Buffer, m: u16) -> Buffer {
        let list = self.aliases.entry(buffer.id()).or_default();
        if let Some((_, a)) = list.iter().find(|(w, _)| *w == m) {
            return a.clone();
        }
        let mut spec: BufferSpec = buffer.to_spec();
        spec.name = format!("{}_vec", buffer.name());
        spec.dtype = buffer.dtype().with_lanes(m);
        spec.strides = Vec::new();
        let divisor = i64::from(m);
        if let Some(last) = spec.shape.last_mut() {
            *last = match const_int(last) {
                Some(n) => imm(tirproof_ir::int_arith::floor_div(n, divisor), last.dtype()),
                None => Expr::floordiv(last.clone(), imm(divisor, last.dtype())),
            };
        }
        spec.elem_offset = match const_int(&spec.elem_offset) {
            Some(e) => Expr::int(e / divisor),
            None => spec.elem_offset,
        };
        let alias = spec.build();
        list.push((m, alias.clone()));
        alias
    }

    /// Declares the aliases of `buffer` at the top of `body`, its declaration's scope.
    fn declare(&mut self, buffer: &Buffer, body: &mut Stmt) {
        let Some(list) = self.aliases.remove(&buffer.id()) else { return };
        let span = body.span;
        for (_, alias) in list.into_iter().rev() {
            let inner = std::mem::replace(body, Stmt::nop());
            *body = Stmt::new(StmtKind::DeclBuffer { buffer: alias, body: Box::new(inner) }, span);
        }
    }
}

impl MutVisitor for Rewriter {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
        if let Expr::Load(load) = expr {
            self.access(&mut load.buffer, &mut load.indices);
        }
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        let outer = self.span;
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        walk_stmt_mut(self, stmt);
        match &mut stmt.kind {
            StmtKind::Store(store) => self.access(&mut store.buffer, &mut store.indices),
            StmtKind::AllocBuffer { buffer, body, .. } | StmtKind::DeclBuffer { buffer, body } => {
                let buffer = buffer.clone();
                self.declare(&buffer, body);
            }
            _ => {}
        }
        self.span = outer;
    }
}

/// The widest power-of-two width dividing `lanes` whose vector of `dtype` fits 16 bytes.
fn vector_width(dtype: DataType, lanes: u16) -> Option<u16> {
    let max = MAX_VECTOR_BITS / u32::from(dtype.bits.max(1));
    let lanes = u32::from(lanes);
    let mut m: u32 = 1;
    while m < lanes && lanes % (m * 2) == 0 && m * 2 <= max {
        m *= 2;
    }
    u16::try_from(m).ok().filter(|m| *m >= 2)
}

/// Why an `m`-lane alias of `buffer` cannot replace an access at Ramp base `base`, if so.
fn eligible(buffer: &Buffer, m: u16, base: &Expr, facts: &Facts) -> Result<u16, String> {
    let t = buffer.dtype();
    if t.is_vector() || t.is_bool() || t.is_handle() {
        return Err(format!("its element type {t} is not a scalar number"));
    }
    if !facts.declared.contains(&buffer.id()) {
        return Err("it has no declaration to put an alias in".into());
    }
    let unit = match buffer.strides() {
        [] => true,
        [s] => const_int(s) == Some(1),
        _ => false,
    };
    if !unit {
        return Err("it has explicit strides".into());
    }
    let multiple_of_m = |e: Option<i64>| e.is_some_and(|e| e % i64::from(m) == 0);
    if !multiple_of_m(const_int(buffer.elem_offset())) {
        return Err(format!("its element offset is not a constant multiple of {m}"));
    }
    if buffer.shape().len() > 1 && !multiple_of_m(buffer.shape().last().and_then(const_int)) {
        return Err(format!("its last extent is not a constant multiple of {m}"));
    }
    if !is_multiple(base, u64::from(m), &facts.lets) {
        return Err(format!("the base `{}` is not provably a multiple of {m}", print_expr(base)));
    }
    Ok(m)
}

fn print_ramp(base: &Expr, lanes: u16) -> String {
    format!("T.Ramp({}, 1, {lanes})", print_expr(base))
}

#[cfg(test)]
mod tests;
