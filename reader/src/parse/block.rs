//! Lowering of S-TIR blocks: `with T.sblock("name"):` with its header statements.
//!
//! The header is the leading run of statements of the block body that are header forms, in
//! any order: iteration variables (`vi = T.axis.spatial(16, i)`, `T.axis.reduce`, `T.axis.S`,
//! `T.axis.R`, `vi, vj = T.axis.remap("SR", [i, j])`), `T.where(cond)`, `T.reads(...)`,
//! `T.writes(...)`, `T.attr({...})` (block annotations), `B = T.sblock_alloc_buffer(...)` and
//! `with T.init():`. It is read in two passes — first the forms that bind names (iteration
//! variables, allocated buffers), then the rest — so that a region or predicate may use any
//! header name wherever it was written. Invariant: header forms after the first body statement
//! are errors (except `T.attr`, which there is an ordinary attribute statement).

use tirproof_ir::annotation::Annotations;
use tirproof_ir::buffer::{BufferRegion, Range};
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{Block, BlockAlloc, IterKind, IterVar, Stmt, StmtKind};
use tirproof_ir::var::Var;

use super::ast::{Ident, Kwarg, PExpr, PExprKind, PIndex, PStmt, PStmtKind, TreeBuilder};
use super::buffer::SBLOCK_ALLOC_SIG;
use super::expr::{constant_like, min_extent};
use super::lower::{Lowerer, Sig};
use super::scope::Binding;
use super::stream::{Finish, Frame, Inner};

const SBLOCK_SIG: Sig = Sig { name: "T.sblock", params: &["name", "no_realize"], positional: 2, required: 0 };

macro_rules! axis_sig {
    ($name:literal) => {
        Sig { name: $name, params: &["dom", "binding", "dtype"], positional: 3, required: 2 }
    };
}

const SPATIAL_SIG: Sig = axis_sig!("T.axis.spatial");
const REDUCE_SIG: Sig = axis_sig!("T.axis.reduce");
const S_SIG: Sig = axis_sig!("T.axis.S");
const R_SIG: Sig = axis_sig!("T.axis.R");

const REMAP_SIG: Sig =
    Sig { name: "T.axis.remap", params: &["kinds", "bindings", "dtype"], positional: 3, required: 2 };

/// A block whose header was read, waiting for its body.
pub(super) struct OpenBlock {
    name: String,
    parts: Box<Parts>,
    span: Span,
}

impl OpenBlock {
    pub fn wrap(self, body: Stmt) -> Stmt {
        finish_block(self.name, self.parts, body, self.span)
    }
}

/// The parts of a block collected from its header.
#[derive(Default)]
struct Parts {
    iter_vars: Vec<IterVar>,
    predicate: Option<Expr>,
    reads: Option<Vec<BufferRegion>>,
    writes: Option<Vec<BufferRegion>>,
    annotations: Annotations,
    alloc_buffers: Vec<BlockAlloc>,
    init: Option<Stmt>,
}

fn finish_block(name: String, parts: Box<Parts>, body: Stmt, span: Span) -> Stmt {
    let parts = *parts;
    let block = Block {
        name,
        iter_vars: parts.iter_vars,
        predicate: parts.predicate,
        reads: parts.reads,
        writes: parts.writes,
        annotations: parts.annotations,
        alloc_buffers: parts.alloc_buffers,
        init: parts.init,
        body,
    };
    Stmt::new(StmtKind::Block(Box::new(block)), span)
}

/// Whether `stmt` is a block header form.
pub(super) fn is_header(stmt: &PStmt) -> bool {
    match &stmt.kind {
        PStmtKind::Expr(e) => match e.as_call() {
            Some((callee, args, kwargs)) => {
                matches!(callee.as_str(), "T.where" | "T.reads" | "T.writes")
                    || (matches!(callee.as_str(), "T.attr" | "T.sblock_attr")
                        && kwargs.is_empty()
                        && matches!(args, [d] if matches!(d.kind, PExprKind::Dict(_))))
            }
            None => false,
        },
        PStmtKind::Assign { value, .. } => value
            .as_call()
            .is_some_and(|(callee, ..)| callee.starts_with("T.axis.") || callee == "T.sblock_alloc_buffer"),
        PStmtKind::With { item, .. } => item.as_call().is_some_and(|(callee, ..)| callee == "T.init"),
        _ => false,
    }
}

/// The names on the left of `vi = ...` or `vi, vj = ...`.
fn target_names(target: &PExpr) -> Vec<Ident> {
    let one = |e: &PExpr| e.as_name().map(|name| Ident { name: name.to_string(), span: e.span });
    match &target.kind {
        PExprKind::Tuple(items) => items.iter().filter_map(one).collect(),
        _ => one(target).into_iter().collect(),
    }
}

impl Lowerer {
    /// Reads the block's name and takes its nesting level; the header statements are
    /// gathered until the first body statement (`Inner::Header`).
    pub fn open_block(&mut self, item: &PExpr, span: Span) -> Frame {
        let name = self.block_name_of(item);
        if !self.enter(1, span) {
            return Frame::skip(0);
        }
        Frame {
            inner: Inner::Header { header: Vec::new(), tree: TreeBuilder::default(), name, span },
            finish: Finish::Nothing,
        }
    }

    /// The header is complete: reads it in the block's scope, where the body follows.
    pub fn begin_block_body(&mut self, name: String, span: Span, header: &[PStmt]) -> Frame {
        self.scopes.push();
        self.blocks += 1;
        let parts = self.block_header(header);
        Frame::lower(1, 1, Finish::Block(OpenBlock { name, parts, span }))
    }

    fn block_name_of(&mut self, item: &PExpr) -> String {
        match item.as_call() {
            Some((_, args, kwargs)) => self.block_name(item.span, args, kwargs),
            None => String::new(),
        }
    }

    /// Reads the header in two passes: first the forms that bind names, then the rest.
    fn block_header(&mut self, header: &[PStmt]) -> Box<Parts> {
        let mut parts = Box::<Parts>::default();
        for stmt in header {
            self.header_binding(stmt, &mut parts);
        }
        for stmt in header {
            self.header_clause(stmt, &mut parts);
        }
        parts
    }

    fn block_name(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> String {
        let Some(bound) = self.bind_args(&SBLOCK_SIG, span, args, kwargs) else {
            return String::new();
        };
        if let Some(flag) = bound.get("no_realize") {
            self.const_bool(flag, "`no_realize`");
        }
        bound.get("name").and_then(|n| self.string_arg(n, "the block name")).unwrap_or_default()
    }

    /// First pass: the header forms that bind names.
    fn header_binding(&mut self, stmt: &PStmt, parts: &mut Parts) {
        let PStmtKind::Assign { target, value } = &stmt.kind else {
            return;
        };
        let Some((callee, args, kwargs)) = value.as_call() else {
            return;
        };
        let names = target_names(target);
        let span = value.span;
        if callee == "T.axis.remap" {
            return self.remap(&names, span, args, kwargs, parts);
        }
        let single = match (&target.kind, names.as_slice()) {
            (PExprKind::Name(_), [one]) => one,
            _ => {
                self.error(target.span, format!("`{callee}` binds one name"), "a name", target.describe());
                for name in &names {
                    self.poison(name);
                }
                return;
            }
        };
        if callee == "T.sblock_alloc_buffer" {
            self.block_alloc(single, span, args, kwargs, parts);
        } else {
            self.axis(&callee, single, span, args, kwargs, parts);
        }
    }

    /// Second pass: predicate, regions, annotations and init.
    fn header_clause(&mut self, stmt: &PStmt, parts: &mut Parts) {
        match &stmt.kind {
            PStmtKind::Expr(e) => {
                let Some((callee, args, kwargs)) = e.as_call() else {
                    return;
                };
                self.header_call(&callee, e.span, args, kwargs, parts);
            }
            PStmtKind::With { body, targets, .. } => {
                if !targets.is_empty() {
                    self.error(stmt.span, "`T.init` does not bind a name", "`with T.init():`", "`as`");
                }
                let init = self.suite(body, stmt.span);
                if parts.init.replace(init).is_some() {
                    self.error(stmt.span, "duplicate `T.init`", "one `with T.init():` per block", "a second one");
                }
            }
            _ => {}
        }
    }

    fn header_call(&mut self, callee: &str, span: Span, args: &[PExpr], kwargs: &[Kwarg], parts: &mut Parts) {
        if let Some(kw) = kwargs.first() {
            self.error(
                kw.span,
                format!("unexpected keyword argument `{}` to `{callee}`", kw.name),
                "positional arguments",
                format!("`{}`", kw.name),
            );
            return;
        }
        match callee {
            "T.where" => {
                let Some([cond]) = self.exact_args(callee, span, args, kwargs, 1) else {
                    return;
                };
                let cond = self.expr(cond);
                if parts.predicate.replace(cond).is_some() {
                    self.error(span, "duplicate `T.where`", "one `T.where` per block", "a second one");
                }
            }
            "T.reads" | "T.writes" => {
                let regions = self.regions(args);
                let slot = if callee == "T.reads" { &mut parts.reads } else { &mut parts.writes };
                if slot.replace(regions).is_some() {
                    self.error(
                        span,
                        format!("duplicate `{callee}`"),
                        format!("one `{callee}` per block"),
                        "a second one",
                    );
                }
            }
            _ => {
                if let [dict] = args {
                    if !parts.annotations.span.is_known() {
                        parts.annotations.span = span;
                    }
                    for (key, value) in self.annotations(dict).entries {
                        parts.annotations.insert(key, value);
                    }
                }
            }
        }
    }

    /// The regions of `T.reads(...)` / `T.writes(...)`; a list argument is flattened.
    fn regions(&mut self, args: &[PExpr]) -> Vec<BufferRegion> {
        let mut out = Vec::new();
        for arg in args {
            match &arg.kind {
                PExprKind::List(items) | PExprKind::Tuple(items) => {
                    out.extend(items.iter().filter_map(|item| self.region(item)));
                }
                _ => out.extend(self.region(arg)),
            }
        }
        out
    }

    /// `A[0:16, i]` (slices and points), or `A` for the whole buffer.
    fn region(&mut self, e: &PExpr) -> Option<BufferRegion> {
        let (base, items) = match &e.kind {
            PExprKind::Subscript { value, items } => (value.as_ref(), items.as_slice()),
            PExprKind::Name(_) => (e, [].as_slice()),
            _ => {
                self.error(e.span, "expected a buffer region", "a region such as `A[0:16, i]`", e.describe());
                return None;
            }
        };
        let buffer = self.subscript_buffer(base, "take a region of")?;
        if items.is_empty() {
            let region =
                buffer.shape().iter().map(|d| Range { min: constant_like(0, d.dtype()), extent: d.clone() }).collect();
            return Some(BufferRegion { buffer, region });
        }
        if items.len() != buffer.shape().len() {
            self.error(
                base.span,
                format!("wrong number of indices for `{}`", buffer.name()),
                buffer.shape().len().to_string(),
                items.len().to_string(),
            );
        }
        let region = items.iter().map(|item| self.range(item)).collect();
        Some(BufferRegion { buffer, region })
    }

    fn range(&mut self, item: &PIndex) -> Range {
        match item {
            PIndex::Point(e) => {
                let index = self.expr(e);
                let extent = constant_like(1, index.dtype());
                Range { min: index, extent }
            }
            PIndex::Slice { lo, hi, step, span } => {
                if step.is_some() {
                    self.error(*span, "a region cannot have a step", "`lo:hi`", "`lo:hi:step`");
                }
                let (min, end) = self.unify(lo, hi);
                let (min, extent) = min_extent(min, end);
                Range { min, extent }
            }
        }
    }

    /// `vi = T.axis.spatial(dom, binding)`: `dom` is an extent or a `(min, end)` pair.
    fn axis(&mut self, callee: &str, name: &Ident, span: Span, args: &[PExpr], kwargs: &[Kwarg], parts: &mut Parts) {
        let (sig, kind) = match callee {
            "T.axis.spatial" => (&SPATIAL_SIG, IterKind::Spatial),
            "T.axis.S" => (&S_SIG, IterKind::Spatial),
            "T.axis.reduce" => (&REDUCE_SIG, IterKind::Reduce),
            "T.axis.R" => (&R_SIG, IterKind::Reduce),
            _ => {
                self.error(
                    span,
                    format!("unknown axis kind `{callee}`"),
                    "`T.axis.spatial`, `T.axis.reduce`, `T.axis.S`, `T.axis.R` or `T.axis.remap`",
                    format!("`{callee}`"),
                );
                self.poison(name);
                return;
            }
        };
        let Some(bound) = self.bind_args(sig, span, args, kwargs) else {
            self.poison(name);
            return;
        };
        let (Some(dom), Some(binding)) = (bound.get("dom"), bound.get("binding")) else {
            self.poison(name);
            return;
        };
        let declared = bound.get("dtype").and_then(|d| self.dtype_arg(d));
        let binding = self.expr(binding);
        let index_type = declared.unwrap_or_else(|| index_type(&binding));
        let (min, extent) = match &dom.kind {
            PExprKind::Tuple(pair) => match pair.as_slice() {
                [lo, hi] => {
                    let (min, end) = (self.expr_as(lo, index_type), self.expr_as(hi, index_type));
                    min_extent(min, end)
                }
                _ => {
                    self.error(dom.span, "an iteration domain has two bounds", "`(min, end)`", dom.describe());
                    self.poison(name);
                    return;
                }
            },
            _ => {
                let extent = self.expr_as(dom, index_type);
                (constant_like(0, extent.dtype()), extent)
            }
        };
        let var = Var::new(name.name.clone(), declared.unwrap_or_else(|| extent.dtype()));
        self.scopes.bind(&name.name, Binding::Var(var.clone()));
        parts.iter_vars.push(IterVar { var, min, extent, kind, binding });
    }

    /// `vi, vj = T.axis.remap("SR", [i, j])`: domains come from the bound loops.
    fn remap(&mut self, names: &[Ident], span: Span, args: &[PExpr], kwargs: &[Kwarg], parts: &mut Parts) {
        let poison_all = |this: &mut Self| {
            for name in names {
                this.poison(name);
            }
        };
        let Some(bound) = self.bind_args(&REMAP_SIG, span, args, kwargs) else {
            return poison_all(self);
        };
        let kinds = bound.get("kinds").and_then(|k| self.string_arg(k, "the iteration kinds"));
        let bindings = match bound.get("bindings").map(|b| &b.kind) {
            Some(PExprKind::List(items) | PExprKind::Tuple(items)) => Some(items.as_slice()),
            _ => None,
        };
        let (Some(kinds), Some(bindings)) = (kinds, bindings) else {
            self.error(
                span,
                "`T.axis.remap` takes a kind string and a list of loop variables",
                "`T.axis.remap(\"SR\", [i, j])`",
                "other arguments",
            );
            return poison_all(self);
        };
        if kinds.chars().count() != bindings.len() || bindings.len() != names.len() {
            self.error(
                span,
                "`T.axis.remap` needs one kind and one loop variable per name",
                format!("{} kinds and loop variables", names.len()),
                format!("{} kinds and {} loop variables", kinds.chars().count(), bindings.len()),
            );
            return poison_all(self);
        }
        for ((name, kind), binding) in names.iter().zip(kinds.chars()).zip(bindings) {
            self.remap_one(name, kind, binding, parts);
        }
    }

    fn remap_one(&mut self, name: &Ident, kind: char, binding: &PExpr, parts: &mut Parts) {
        let kind = match kind {
            'S' => IterKind::Spatial,
            'R' => IterKind::Reduce,
            other => {
                self.error(
                    binding.span,
                    format!("unknown iteration kind `{other}`"),
                    "`S` or `R`",
                    format!("`{other}`"),
                );
                self.poison(name);
                return;
            }
        };
        let loop_var = binding.as_name().and_then(|n| match self.scopes.lookup(n) {
            Some(Binding::LoopVar { var, min, extent }) => Some((var.clone(), min.clone(), extent.clone())),
            _ => None,
        });
        let Some((loop_var, min, extent)) = loop_var else {
            self.error(binding.span, "`T.axis.remap` binds loop variables", "a loop variable", binding.describe());
            self.poison(name);
            return;
        };
        let var = Var::new(name.name.clone(), loop_var.dtype());
        self.scopes.bind(&name.name, Binding::Var(var.clone()));
        parts.iter_vars.push(IterVar { var, min, extent, kind, binding: Expr::var(&loop_var) });
    }

    /// `B = T.sblock_alloc_buffer(...)`.
    fn block_alloc(&mut self, name: &Ident, span: Span, args: &[PExpr], kwargs: &[Kwarg], parts: &mut Parts) {
        if let Some(alloc) = self.sblock_alloc(name, span, args, kwargs) {
            parts.alloc_buffers.push(alloc);
        }
    }

    /// The allocation `name = T.sblock_alloc_buffer(args)` makes, with `name` bound to its
    /// buffer (poisoned when the arguments are wrong): in a block header, or at the top of an
    /// S-TIR function, where TVM prints the allocations of the implicit root block.
    pub(super) fn sblock_alloc(
        &mut self,
        name: &Ident,
        span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
    ) -> Option<BlockAlloc> {
        let Some(bound) = self.bind_args(&SBLOCK_ALLOC_SIG, span, args, kwargs) else {
            self.poison(name);
            return None;
        };
        let annotations = bound.get("annotations").map(|a| self.annotations(a)).unwrap_or_default();
        match self.buffer_from_args(&name.name, &bound, tirproof_ir::buffer::SCOPE_GLOBAL, span) {
            Some(buffer) => {
                self.scopes.bind(&name.name, Binding::Buffer(buffer.clone()));
                Some(BlockAlloc { buffer, annotations })
            }
            None => {
                self.poison(name);
                None
            }
        }
    }
}

/// The integer type an iteration domain takes from its binding (int32 unless the binding is
/// another integer type).
fn index_type(binding: &Expr) -> DataType {
    let dtype = binding.dtype();
    if dtype.is_integer() && dtype.is_scalar() {
        dtype
    } else {
        DataType::INT32
    }
}
