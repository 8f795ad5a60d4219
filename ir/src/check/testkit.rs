//! Test-only builders that keep IR construction in tests short (the parser is developed
//! elsewhere, so tests build trees directly). Nothing here is part of the public API.
//!
//! Conventions: `at(line)` gives a statement the span `line:1`, so tests can assert where a
//! diagnostic points; buffers are global-scope and compact unless built otherwise.

use crate::annotation::{AnnValue, Annotations};
use crate::buffer::{Buffer, BufferRegion, Range, SCOPE_GLOBAL, SCOPE_SHARED};
use crate::build;
use crate::dtype::DataType;
use crate::expr::Expr;
use crate::func::{Param, PrimFunc};
use crate::span::Span;
use crate::stmt::{Block, BlockAlloc, ForKind, IterKind, IterVar, Stmt, StmtKind};
use crate::var::Var;

pub(crate) const I32: DataType = DataType::INT32;
pub(crate) const F32: DataType = DataType::FLOAT32;

pub(crate) fn var(name: &str, dtype: DataType) -> Var {
    Var::new(name, dtype)
}

pub(crate) fn i32v(name: &str) -> Var {
    Var::new(name, I32)
}

pub(crate) fn v(var: &Var) -> Expr {
    Expr::var(var)
}

pub(crate) fn int(value: i64) -> Expr {
    Expr::int(value)
}

pub(crate) fn f32c(value: f64) -> Expr {
    Expr::float(value, F32)
}

/// A compact global buffer with constant extents.
pub(crate) fn buf(name: &str, dtype: DataType, shape: &[i64]) -> Buffer {
    build::buffer(name, dtype, shape, SCOPE_GLOBAL)
}

/// A compact shared-memory buffer with constant extents.
pub(crate) fn shared(name: &str, dtype: DataType, shape: &[i64]) -> Buffer {
    build::buffer(name, dtype, shape, SCOPE_SHARED)
}

/// A new buffer over the data variable of `of` (an alias).
pub(crate) fn alias(name: &str, of: &Buffer, dtype: DataType, shape: &[i64]) -> Buffer {
    build::alias(of, name, dtype, shape)
}

/// Gives statements a position, so tests can assert the span of a diagnostic.
pub(crate) trait At {
    fn at(self, line: u32) -> Stmt;
}

impl At for Stmt {
    fn at(mut self, line: u32) -> Stmt {
        self.span = Span::new(line, 1);
        self
    }
}

pub(crate) use crate::build::{
    alloc_buffer, allocate, attr, decl_buffer, evaluate, for_stmt, if_then, let_stmt, loop_of, store,
};

fn st(kind: StmtKind) -> Stmt {
    Stmt::synthetic(kind)
}

pub(crate) fn load(buffer: &Buffer, indices: Vec<Expr>) -> Expr {
    Expr::load(buffer, indices)
}

/// A sequence that keeps its items as given (no flattening), unlike `Stmt::seq`.
pub(crate) fn seq(items: Vec<Stmt>) -> Stmt {
    st(StmtKind::Seq(items))
}

pub(crate) fn serial(var: &Var, extent: i64, body: Stmt) -> Stmt {
    for_stmt(loop_of(ForKind::Serial, var, Expr::int_of(extent, var.dtype()), body))
}

pub(crate) fn thread_loop(var: &Var, tag: &str, extent: i64, body: Stmt) -> Stmt {
    let mut f = loop_of(ForKind::ThreadBinding, var, Expr::int_of(extent, var.dtype()), body);
    f.thread = Some(tag.to_string());
    for_stmt(f)
}

/// A serial loop with annotations.
pub(crate) fn annotated(var: &Var, extent: i64, ann: Annotations, body: Stmt) -> Stmt {
    let mut f = loop_of(ForKind::Serial, var, Expr::int_of(extent, var.dtype()), body);
    f.annotations = ann;
    for_stmt(f)
}

pub(crate) fn int_list(items: &[i64]) -> AnnValue {
    AnnValue::List(items.iter().map(|i| AnnValue::Int(*i)).collect())
}

pub(crate) fn anns(entries: Vec<(&str, AnnValue)>) -> Annotations {
    Annotations { entries: entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect(), ..Annotations::default() }
}

pub(crate) fn launch(var: &Var, tag: &str, extent: Expr, body: Stmt) -> Stmt {
    st(StmtKind::LaunchThread { var: var.clone(), tag: tag.to_string(), extent, body: Box::new(body) })
}

/// A spatial iteration variable over `[0, extent)` bound to `binding`.
pub(crate) fn iter_var(var: &Var, extent: i64, binding: Expr) -> IterVar {
    IterVar { var: var.clone(), min: int(0), extent: int(extent), kind: IterKind::Spatial, binding }
}

/// A block with the given iteration variables and body and nothing else.
pub(crate) fn block(name: &str, iter_vars: Vec<IterVar>, body: Stmt) -> Block {
    Block {
        name: name.to_string(),
        iter_vars,
        predicate: None,
        reads: None,
        writes: None,
        annotations: Annotations::new(),
        alloc_buffers: Vec::new(),
        init: None,
        body,
    }
}

pub(crate) fn block_alloc(buffer: &Buffer) -> BlockAlloc {
    BlockAlloc { buffer: buffer.clone(), annotations: Annotations::new() }
}

pub(crate) fn block_stmt(b: Block) -> Stmt {
    st(StmtKind::Block(Box::new(b)))
}

pub(crate) fn region(buffer: &Buffer, points: Vec<Expr>) -> BufferRegion {
    BufferRegion { buffer: buffer.clone(), region: points.into_iter().map(Range::point).collect() }
}

/// A parameter handle mapped to `buffer`.
pub(crate) fn bparam(buffer: &Buffer) -> Param {
    build::buffer_param(buffer)
}

pub(crate) fn sparam(var: &Var) -> Param {
    build::scalar_param(var)
}

pub(crate) fn func(params: Vec<Param>, body: Stmt) -> PrimFunc {
    PrimFunc { span: Span::new(1, 1), ..build::func("main", params, body) }
}

/// Copies `func` with every bound variable and declared buffer replaced by a fresh one (new
/// identity, new name): an alpha-renaming. Free variables and buffers are kept.
pub(crate) fn alpha_rename(func: &PrimFunc) -> PrimFunc {
    use crate::visit::{walk_func, MutVisitor};
    let mut defs = Defs::default();
    walk_func(&mut defs, func);
    let mut r = Renamer { defs, vars: std::collections::HashMap::new(), bufs: std::collections::HashMap::new() };
    let mut out = func.clone();
    r.annotations(&mut out.attrs);
    for p in &mut out.params {
        p.var = r.var(&p.var);
        if let Some(b) = &mut p.buffer {
            r.mutate_buffer(b);
        }
    }
    r.mutate_stmt(&mut out.body);
    out
}

/// The identities a function binds: variable definitions, declared buffers and their data
/// variables, and the bare variables of parameter buffers' shapes.
#[derive(Default)]
struct Defs {
    vars: std::collections::HashSet<crate::var::VarId>,
    bufs: std::collections::HashSet<crate::buffer::BufferId>,
}

impl crate::visit::Visitor for Defs {
    fn visit_var_def(&mut self, var: &Var) {
        self.vars.insert(var.id());
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.bufs.insert(buffer.id());
        self.vars.insert(buffer.data().id());
        for e in buffer.shape().iter().chain(buffer.strides()) {
            if let Expr::Var(x) = e {
                self.vars.insert(x.id());
            }
        }
        crate::visit::walk_buffer_def(self, buffer);
    }
}

struct Renamer {
    defs: Defs,
    vars: std::collections::HashMap<crate::var::VarId, Var>,
    bufs: std::collections::HashMap<crate::buffer::BufferId, Buffer>,
}

impl Renamer {
    fn var(&mut self, var: &Var) -> Var {
        if !self.defs.vars.contains(&var.id()) {
            return var.clone();
        }
        self.vars.entry(var.id()).or_insert_with(|| Var::new(format!("{}_r", var.name()), var.dtype())).clone()
    }
}

impl Renamer {
    /// The visitors do not descend into annotation values, so expressions there are renamed
    /// here.
    fn annotations(&mut self, anns: &mut Annotations) {
        for (_, value) in &mut anns.entries {
            self.ann_value(value);
        }
    }

    fn ann_value(&mut self, value: &mut AnnValue) {
        use crate::visit::MutVisitor;
        match value {
            AnnValue::Expr(e) => self.mutate_expr(e),
            AnnValue::List(items) => items.iter_mut().for_each(|i| self.ann_value(i)),
            AnnValue::Dict(d) => self.annotations(d),
            AnnValue::Int(_) | AnnValue::Float(_) | AnnValue::Bool(_) | AnnValue::Str(_) => {}
        }
    }
}

impl crate::visit::MutVisitor for Renamer {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Var(x) => *x = self.var(x),
            Expr::Let { var, .. } => *var = self.var(var),
            _ => {}
        }
        crate::visit::walk_expr_mut(self, expr);
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        match &mut stmt.kind {
            StmtKind::Let { var, .. } | StmtKind::LaunchThread { var, .. } => *var = self.var(var),
            StmtKind::For(f) => {
                f.var = self.var(&f.var);
                self.annotations(&mut f.annotations);
            }
            StmtKind::Allocate(a) => {
                a.data = self.var(&a.data);
                self.annotations(&mut a.annotations);
            }
            StmtKind::AllocBuffer { annotations, .. } => self.annotations(annotations),
            StmtKind::Block(b) => {
                for iv in &mut b.iter_vars {
                    iv.var = self.var(&iv.var);
                }
                self.annotations(&mut b.annotations);
                for alloc in &mut b.alloc_buffers {
                    self.annotations(&mut alloc.annotations);
                }
            }
            _ => {}
        }
        crate::visit::walk_stmt_mut(self, stmt);
    }

    fn mutate_buffer(&mut self, buffer: &mut Buffer) {
        if !self.defs.bufs.contains(&buffer.id()) {
            return;
        }
        if let Some(done) = self.bufs.get(&buffer.id()) {
            *buffer = done.clone();
            return;
        }
        let mut spec = buffer.to_spec();
        spec.name = format!("{}_r", spec.name);
        spec.data = self.var(&spec.data);
        for e in spec.shape.iter_mut().chain(spec.strides.iter_mut()) {
            self.mutate_expr(e);
        }
        self.mutate_expr(&mut spec.elem_offset);
        let fresh = spec.build();
        self.bufs.insert(buffer.id(), fresh.clone());
        *buffer = fresh;
    }
}
