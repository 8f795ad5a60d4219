//! Structural equality: the parallel walk that builds the variable and buffer bijections.
//!
//! Invariants: the walk visits fields in exactly the order `hash.rs` hashes them, so the two
//! agree on which occurrence of a variable is its first; the first difference found is kept
//! (with its path) and the walk stops there.

use std::collections::HashMap;
use std::fmt::{Debug, Display};
use std::hash::Hash;

use super::{render_path, view, Seg, View};
use crate::annotation::{AnnValue, Annotations};
use crate::buffer::{Buffer, BufferId, BufferRegion, Range};
use crate::expr::{BufferLoad, Call, Expr};
use crate::func::{Param, PrimFunc};
use crate::print::print_expr;
use crate::stmt::{Allocate, AttrStmt, Block, BlockAlloc, BufferStore, For, IterVar, Stmt, StmtKind};
use crate::var::{Var, VarId};

/// The result of pairing two binding occurrences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pairing {
    /// Neither side was paired before; now they are.
    New,
    /// They were already paired with each other.
    Known,
    /// One side is paired with something else.
    Conflict,
}

/// A partial bijection between the identities of the left and the right tree.
#[derive(Debug)]
struct Bijection<K> {
    fwd: HashMap<K, K>,
    rev: HashMap<K, K>,
}

impl<K: Copy + Eq + Hash> Bijection<K> {
    fn new() -> Self {
        Bijection { fwd: HashMap::new(), rev: HashMap::new() }
    }

    fn pairing(&self, a: K, b: K) -> Pairing {
        match (self.fwd.get(&a), self.rev.get(&b)) {
            (None, None) => Pairing::New,
            (Some(x), Some(y)) if *x == b && *y == a => Pairing::Known,
            _ => Pairing::Conflict,
        }
    }

    /// A binding site: pairs `a` with `b` unless either is paired elsewhere.
    fn bind(&mut self, a: K, b: K) -> Pairing {
        let p = self.pairing(a, b);
        if p == Pairing::New {
            self.fwd.insert(a, b);
            self.rev.insert(b, a);
        }
        p
    }

    /// A use: paired identities must agree; unpaired (free) ones must be the same identity,
    /// which is then recorded so that a later binding of it cannot pair it with another.
    fn use_site(&mut self, a: K, b: K) -> bool {
        match self.pairing(a, b) {
            Pairing::Known => true,
            Pairing::Conflict => false,
            Pairing::New if a == b => {
                self.fwd.insert(a, b);
                self.rev.insert(b, a);
                true
            }
            Pairing::New => false,
        }
    }
}

/// Why two uses do not correspond, for diffs (names alone may coincide).
fn mismatch_reason(p: Pairing) -> &'static str {
    match p {
        Pairing::New => " (different free identities)",
        Pairing::Known | Pairing::Conflict => " (bound to different things)",
    }
}

/// What is left to compare after one statement's own fields: nothing (with the verdict), or
/// its tail — the body of a let, loop, attribute, allocation, declaration, launch or block,
/// or the last item of a sequence — whose path has already been pushed.
enum Step<'a> {
    Done(bool),
    Tail(&'a Stmt, &'a Stmt),
}

/// The state of one comparison.
pub(super) struct EqCx {
    vars: Bijection<VarId>,
    bufs: Bijection<BufferId>,
    path: Vec<Seg>,
    diff: Option<String>,
}

/// Where a buffer is declared; parameter buffers also bind the bare variables of their shape
/// (TVM's `match_buffer` defines symbolic extents that way).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DeclSite {
    Param,
    Body,
}

impl EqCx {
    pub(super) fn new() -> Self {
        EqCx { vars: Bijection::new(), bufs: Bijection::new(), path: Vec::new(), diff: None }
    }

    /// The recorded difference (only meaningful after a comparison returned false).
    pub(super) fn into_diff(self) -> String {
        self.diff.unwrap_or_else(|| "<root>: the trees differ".to_string())
    }

    /// Records the first difference at the current path and returns false.
    fn fail(&mut self, a: impl Display, b: impl Display) -> bool {
        if self.diff.is_none() {
            self.diff = Some(format!("{}: {a} vs {b}", render_path(&self.path)));
        }
        false
    }

    fn at(&mut self, seg: Seg, f: impl FnOnce(&mut Self) -> bool) -> bool {
        self.path.push(seg);
        let ok = f(self);
        self.path.pop();
        ok
    }

    fn field(&mut self, name: &'static str, f: impl FnOnce(&mut Self) -> bool) -> bool {
        self.at(Seg::Field(name), f)
    }

    fn same<T: PartialEq + Display>(&mut self, name: &'static str, a: T, b: T) -> bool {
        a == b || self.field(name, |cx| cx.fail(a, b))
    }

    fn same_dbg<T: PartialEq + Debug>(&mut self, name: &'static str, a: T, b: T) -> bool {
        a == b || self.field(name, |cx| cx.fail(format!("{a:?}"), format!("{b:?}")))
    }

    /// Compares two lists item by item under `name[i]`.
    fn list<T>(&mut self, name: &'static str, a: &[T], b: &[T], mut f: impl FnMut(&mut Self, &T, &T) -> bool) -> bool {
        self.field(name, |cx| {
            if a.len() != b.len() {
                return cx.fail(format!("{} items", a.len()), format!("{} items", b.len()));
            }
            a.iter().zip(b).enumerate().all(|(i, (x, y))| cx.at(Seg::Index(i), |cx| f(cx, x, y)))
        })
    }

    fn option<T>(
        &mut self,
        name: &'static str,
        a: Option<&T>,
        b: Option<&T>,
        f: impl FnOnce(&mut Self, &T, &T) -> bool,
    ) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => self.field(name, |cx| f(cx, x, y)),
            (x, _) => {
                let (l, r) = if x.is_some() { ("present", "absent") } else { ("absent", "present") };
                self.field(name, |cx| cx.fail(l, r))
            }
        }
    }

    // ---- variables and buffers -------------------------------------------------------------

    fn bind_var(&mut self, a: &Var, b: &Var) -> bool {
        if a.dtype() != b.dtype() {
            return self.fail(format!("`{a}`: {}", a.dtype()), format!("`{b}`: {}", b.dtype()));
        }
        match self.vars.bind(a.id(), b.id()) {
            Pairing::New | Pairing::Known => true,
            Pairing::Conflict => {
                self.fail(format!("binding of `{a}`"), format!("binding of `{b}` (the variables do not correspond)"))
            }
        }
    }

    fn use_var(&mut self, a: &Var, b: &Var) -> bool {
        let why = mismatch_reason(self.vars.pairing(a.id(), b.id()));
        self.vars.use_site(a.id(), b.id()) || self.fail(format!("variable `{a}`"), format!("variable `{b}`{why}"))
    }

    fn bind_buffer(&mut self, a: &Buffer, b: &Buffer, site: DeclSite) -> bool {
        match self.bufs.bind(a.id(), b.id()) {
            Pairing::New => self.buffer_fields(a, b, site),
            Pairing::Known => true,
            Pairing::Conflict => self
                .fail(format!("declaration of `{a}`"), format!("declaration of `{b}` (the buffers do not correspond)")),
        }
    }

    fn use_buffer(&mut self, a: &Buffer, b: &Buffer) -> bool {
        let why = mismatch_reason(self.bufs.pairing(a.id(), b.id()));
        self.bufs.use_site(a.id(), b.id()) || self.fail(format!("buffer `{a}`"), format!("buffer `{b}`{why}"))
    }

    fn buffer_fields(&mut self, a: &Buffer, b: &Buffer, site: DeclSite) -> bool {
        let (na, nb) = (a.node(), b.node());
        self.field("data", |cx| cx.bind_var(a.data(), b.data()))
            && self.same("dtype", a.dtype(), b.dtype())
            && self.list("shape", a.shape(), b.shape(), |cx, x, y| cx.dim(x, y, site))
            && self.list("strides", a.strides(), b.strides(), |cx, x, y| cx.dim(x, y, site))
            && self.field("elem_offset", |cx| cx.dim(a.elem_offset(), b.elem_offset(), site))
            && self.same_dbg("scope", a.scope(), b.scope())
            && self.same("align", na.align, nb.align)
            && self.same("offset_factor", na.offset_factor, nb.offset_factor)
    }

    /// A shape, stride or offset entry; a bare variable in a parameter buffer binds it.
    fn dim(&mut self, a: &Expr, b: &Expr, site: DeclSite) -> bool {
        match (site, a, b) {
            (DeclSite::Param, Expr::Var(x), Expr::Var(y)) => self.bind_var(x, y),
            _ => self.expr(a, b),
        }
    }

    // ---- functions -------------------------------------------------------------------------

    pub(super) fn func(&mut self, a: &PrimFunc, b: &PrimFunc) -> bool {
        self.same_dbg("name", &a.name, &b.name)
            && self.same("s_tir", a.s_tir, b.s_tir)
            && self.same("private", a.private, b.private)
            && self.params(&a.params, &b.params)
            && self.field("attrs", |cx| cx.annotations(&a.attrs, &b.attrs))
            && self.field("body", |cx| cx.stmt(&a.body, &b.body))
    }

    /// All parameter variables first, then the buffer map, as `visit::walk_func` does, so that
    /// a buffer's shape may name any scalar parameter.
    fn params(&mut self, a: &[Param], b: &[Param]) -> bool {
        self.list("params", a, b, |cx, x, y| cx.bind_var(&x.var, &y.var))
            && self.list("params", a, b, |cx, x, y| {
                cx.option("buffer", x.buffer.as_ref(), y.buffer.as_ref(), |cx, p, q| {
                    cx.bind_buffer(p, q, DeclSite::Param)
                })
            })
    }

    // ---- annotations -----------------------------------------------------------------------

    fn annotations(&mut self, a: &Annotations, b: &Annotations) -> bool {
        self.list("entries", &a.entries, &b.entries, |cx, (ka, va), (kb, vb)| {
            cx.same_dbg("key", ka, kb) && cx.field("value", |cx| cx.ann_value(va, vb))
        })
    }

    fn ann_value(&mut self, a: &AnnValue, b: &AnnValue) -> bool {
        match (a, b) {
            (AnnValue::Int(x), AnnValue::Int(y)) => x == y || self.fail(x, y),
            (AnnValue::Float(x), AnnValue::Float(y)) => x.to_bits() == y.to_bits() || self.fail(x, y),
            (AnnValue::Bool(x), AnnValue::Bool(y)) => x == y || self.fail(x, y),
            (AnnValue::Str(x), AnnValue::Str(y)) => x == y || self.fail(format!("{x:?}"), format!("{y:?}")),
            (AnnValue::List(x), AnnValue::List(y)) => self.list("list", x, y, |cx, p, q| cx.ann_value(p, q)),
            (AnnValue::Dict(x), AnnValue::Dict(y)) => self.annotations(x, y),
            (AnnValue::Expr(x), AnnValue::Expr(y)) => self.expr(x, y),
            _ => self.fail(a.kind_name(), b.kind_name()),
        }
    }

    // ---- statements ------------------------------------------------------------------------

    /// Compares two statements. Tail bodies (see `Step`) are followed in a loop, so a long
    /// chain of lets or allocations does not deepen the recursion.
    pub(super) fn stmt(&mut self, a: &Stmt, b: &Stmt) -> bool {
        let depth = self.path.len();
        let (mut x, mut y) = (a, b);
        let ok = loop {
            match self.stmt_step(x, y) {
                Step::Done(ok) => break ok,
                Step::Tail(nx, ny) => (x, y) = (nx, ny),
            }
        };
        self.path.truncate(depth);
        ok
    }

    /// Compares everything of `a` and `b` except their tail, and pushes the tail's path.
    fn stmt_step<'a>(&mut self, a: &'a Stmt, b: &'a Stmt) -> Step<'a> {
        match (view(a), view(b)) {
            (View::Seq(xs), View::Seq(ys)) => self.seq_step(&xs, &ys),
            (View::One(x), View::One(y)) => self.kind_step(x, y),
            (View::One(x), View::Seq(ys)) => {
                Step::Done(self.fail(x.kind.name(), format!("a sequence of {} statements", ys.len())))
            }
            (View::Seq(xs), View::One(y)) => {
                Step::Done(self.fail(format!("a sequence of {} statements", xs.len()), y.kind.name()))
            }
        }
    }

    /// All items but the last are compared here; the last is the tail.
    fn seq_step<'a>(&mut self, xs: &[&'a Stmt], ys: &[&'a Stmt]) -> Step<'a> {
        self.path.push(Seg::Field("seq"));
        if xs.len() != ys.len() {
            return Step::Done(self.fail(format!("{} items", xs.len()), format!("{} items", ys.len())));
        }
        let (Some((lx, rest_x)), Some((ly, rest_y))) = (xs.split_last(), ys.split_last()) else {
            return Step::Done(true);
        };
        for (i, (x, y)) in rest_x.iter().zip(rest_y).enumerate() {
            if !self.at(Seg::Index(i), |cx| cx.stmt(x, y)) {
                return Step::Done(false);
            }
        }
        self.path.push(Seg::Index(rest_x.len()));
        Step::Tail(lx, ly)
    }

    /// Two non-sequence statements.
    fn kind_step<'a>(&mut self, a: &'a Stmt, b: &'a Stmt) -> Step<'a> {
        let (name_a, name_b) = (a.kind.name(), b.kind.name());
        if name_a != name_b {
            return Step::Done(self.fail(name_a, name_b));
        }
        self.path.push(Seg::Field(name_a));
        self.kind_fields(&a.kind, &b.kind)
    }

    /// Continues with the bodies when the header compared equal.
    fn then_body<'a>(&mut self, header_ok: bool, a: &'a Stmt, b: &'a Stmt) -> Step<'a> {
        if !header_ok {
            return Step::Done(false);
        }
        self.path.push(Seg::Field("body"));
        Step::Tail(a, b)
    }

    fn kind_fields<'a>(&mut self, a: &'a StmtKind, b: &'a StmtKind) -> Step<'a> {
        match (a, b) {
            (StmtKind::Store(x), StmtKind::Store(y)) => Step::Done(self.store(x, y)),
            (StmtKind::Let { var: va, value: xa, body: ba }, StmtKind::Let { var: vb, value: xb, body: bb }) => {
                let ok = self.field("value", |cx| cx.expr(xa, xb)) && self.field("var", |cx| cx.bind_var(va, vb));
                self.then_body(ok, ba, bb)
            }
            (StmtKind::For(x), StmtKind::For(y)) => {
                let ok = self.for_header(x, y);
                self.then_body(ok, &x.body, &y.body)
            }
            (
                StmtKind::If { cond: ca, then_case: ta, else_case: ea },
                StmtKind::If { cond: cb, then_case: tb, else_case: eb },
            ) => Step::Done(
                self.field("cond", |cx| cx.expr(ca, cb))
                    && self.field("then", |cx| cx.stmt(ta, tb))
                    && self.option("else", ea.as_deref(), eb.as_deref(), |cx, x, y| cx.stmt(x, y)),
            ),
            (StmtKind::Attr(x), StmtKind::Attr(y)) => {
                let ok = self.attr_header(x, y);
                self.then_body(ok, &x.body, &y.body)
            }
            (StmtKind::Allocate(x), StmtKind::Allocate(y)) => {
                let ok = self.allocate_header(x, y);
                self.then_body(ok, &x.body, &y.body)
            }
            (
                StmtKind::AllocBuffer { buffer: xa, annotations: na, body: ba },
                StmtKind::AllocBuffer { buffer: xb, annotations: nb, body: bb },
            ) => {
                let ok = self.field("buffer", |cx| cx.bind_buffer(xa, xb, DeclSite::Body))
                    && self.field("annotations", |cx| cx.annotations(na, nb));
                self.then_body(ok, ba, bb)
            }
            (StmtKind::DeclBuffer { buffer: xa, body: ba }, StmtKind::DeclBuffer { buffer: xb, body: bb }) => {
                let ok = self.field("buffer", |cx| cx.bind_buffer(xa, xb, DeclSite::Body));
                self.then_body(ok, ba, bb)
            }
            (StmtKind::Evaluate(x), StmtKind::Evaluate(y)) => Step::Done(self.expr(x, y)),
            (StmtKind::Barrier { scope: x }, StmtKind::Barrier { scope: y }) => {
                Step::Done(self.same_dbg("scope", x, y))
            }
            (
                StmtKind::LaunchThread { var: va, tag: ta, extent: ea, body: ba },
                StmtKind::LaunchThread { var: vb, tag: tb, extent: eb, body: bb },
            ) => {
                let ok = self.same_dbg("tag", ta, tb)
                    && self.field("extent", |cx| cx.expr(ea, eb))
                    && self.field("var", |cx| cx.bind_var(va, vb));
                self.then_body(ok, ba, bb)
            }
            (StmtKind::Block(x), StmtKind::Block(y)) => {
                let ok = self.block_header(x, y);
                self.then_body(ok, &x.body, &y.body)
            }
            // Sequences never reach here (`view` flattens them); other pairs differ in kind.
            _ => Step::Done(self.fail(a.name(), b.name())),
        }
    }

    fn store(&mut self, a: &BufferStore, b: &BufferStore) -> bool {
        self.field("buffer", |cx| cx.use_buffer(&a.buffer, &b.buffer))
            && self.list("indices", &a.indices, &b.indices, |cx, x, y| cx.expr(x, y))
            && self.field("value", |cx| cx.expr(&a.value, &b.value))
    }

    fn for_header(&mut self, a: &For, b: &For) -> bool {
        self.field("min", |cx| cx.expr(&a.min, &b.min))
            && self.field("extent", |cx| cx.expr(&a.extent, &b.extent))
            && self.same_dbg("kind", a.kind, b.kind)
            && self.same_dbg("thread", &a.thread, &b.thread)
            && self.field("annotations", |cx| cx.annotations(&a.annotations, &b.annotations))
            && self.field("var", |cx| cx.bind_var(&a.var, &b.var))
    }

    fn attr_header(&mut self, a: &AttrStmt, b: &AttrStmt) -> bool {
        self.same_dbg("key", &a.key, &b.key)
            && self.option("node", a.node.as_ref(), b.node.as_ref(), |cx, x, y| cx.expr(x, y))
            && self.field("value", |cx| cx.expr(&a.value, &b.value))
    }

    fn allocate_header(&mut self, a: &Allocate, b: &Allocate) -> bool {
        self.same("dtype", a.dtype, b.dtype)
            && self.list("extents", &a.extents, &b.extents, |cx, x, y| cx.expr(x, y))
            && self.same_dbg("scope", &a.scope, &b.scope)
            && self.field("condition", |cx| cx.expr(&a.condition, &b.condition))
            && self.field("annotations", |cx| cx.annotations(&a.annotations, &b.annotations))
            && self.field("data", |cx| cx.bind_var(&a.data, &b.data))
    }

    fn block_header(&mut self, a: &Block, b: &Block) -> bool {
        self.same_dbg("name", &a.name, &b.name)
            && self.list("iter_vars", &a.iter_vars, &b.iter_vars, |cx, x, y| cx.iter_var_domain(x, y))
            && self.list("iter_vars", &a.iter_vars, &b.iter_vars, |cx, x, y| cx.bind_var(&x.var, &y.var))
            && self.option("where", a.predicate.as_ref(), b.predicate.as_ref(), |cx, x, y| cx.expr(x, y))
            && self.list("alloc_buffers", &a.alloc_buffers, &b.alloc_buffers, |cx, x, y| cx.block_alloc(x, y))
            && self.option("reads", a.reads.as_ref(), b.reads.as_ref(), |cx, x, y| cx.regions(x, y))
            && self.option("writes", a.writes.as_ref(), b.writes.as_ref(), |cx, x, y| cx.regions(x, y))
            && self.field("annotations", |cx| cx.annotations(&a.annotations, &b.annotations))
            && self.option("init", a.init.as_ref(), b.init.as_ref(), |cx, x, y| cx.stmt(x, y))
    }

    /// The domain, kind and binding of an iteration variable (the variable is bound after all
    /// bindings are compared, since bindings refer to the enclosing loops only).
    fn iter_var_domain(&mut self, a: &IterVar, b: &IterVar) -> bool {
        self.field("min", |cx| cx.expr(&a.min, &b.min))
            && self.field("extent", |cx| cx.expr(&a.extent, &b.extent))
            && self.same_dbg("kind", a.kind, b.kind)
            && self.field("binding", |cx| cx.expr(&a.binding, &b.binding))
    }

    fn block_alloc(&mut self, a: &BlockAlloc, b: &BlockAlloc) -> bool {
        self.field("buffer", |cx| cx.bind_buffer(&a.buffer, &b.buffer, DeclSite::Body))
            && self.field("annotations", |cx| cx.annotations(&a.annotations, &b.annotations))
    }

    fn regions(&mut self, a: &[BufferRegion], b: &[BufferRegion]) -> bool {
        self.list("regions", a, b, |cx, x, y| {
            cx.field("buffer", |cx| cx.use_buffer(&x.buffer, &y.buffer))
                && cx.list("ranges", &x.region, &y.region, |cx, p, q| cx.range(p, q))
        })
    }

    fn range(&mut self, a: &Range, b: &Range) -> bool {
        self.field("min", |cx| cx.expr(&a.min, &b.min)) && self.field("extent", |cx| cx.expr(&a.extent, &b.extent))
    }

    // ---- expressions -----------------------------------------------------------------------

    pub(super) fn expr(&mut self, a: &Expr, b: &Expr) -> bool {
        match (a, b) {
            (Expr::Int { value: x, dtype: dx }, Expr::Int { value: y, dtype: dy }) => {
                if dx != dy {
                    return self.fail(format!("{x} ({dx})"), format!("{y} ({dy})"));
                }
                x == y || self.fail(x, y)
            }
            (Expr::Float { value: x, dtype: dx }, Expr::Float { value: y, dtype: dy }) => {
                (dx == dy && x.to_bits() == y.to_bits()) || self.fail(format!("{x:?} ({dx})"), format!("{y:?} ({dy})"))
            }
            (Expr::Str(x), Expr::Str(y)) => x == y || self.fail(format!("{x:?}"), format!("{y:?}")),
            (Expr::Var(x), Expr::Var(y)) => self.use_var(x, y),
            (Expr::Binary { op: oa, lhs: la, rhs: ra }, Expr::Binary { op: ob, lhs: lb, rhs: rb }) => {
                (oa == ob || self.fail(oa, ob)) && self.operands(la, ra, lb, rb)
            }
            (Expr::Cmp { op: oa, lhs: la, rhs: ra }, Expr::Cmp { op: ob, lhs: lb, rhs: rb }) => {
                (oa == ob || self.fail(oa, ob)) && self.operands(la, ra, lb, rb)
            }
            (Expr::Logic { op: oa, lhs: la, rhs: ra }, Expr::Logic { op: ob, lhs: lb, rhs: rb }) => {
                (oa == ob || self.fail(oa, ob)) && self.operands(la, ra, lb, rb)
            }
            (Expr::Not(x), Expr::Not(y)) => self.field("value", |cx| cx.expr(x, y)),
            (
                Expr::Select { cond: ca, on_true: ta, on_false: fa },
                Expr::Select { cond: cb, on_true: tb, on_false: fb },
            )
            | (
                Expr::IfThenElse { cond: ca, on_true: ta, on_false: fa },
                Expr::IfThenElse { cond: cb, on_true: tb, on_false: fb },
            ) => {
                self.field("cond", |cx| cx.expr(ca, cb))
                    && self.field("on_true", |cx| cx.expr(ta, tb))
                    && self.field("on_false", |cx| cx.expr(fa, fb))
            }
            (Expr::Cast { dtype: da, value: xa }, Expr::Cast { dtype: db, value: xb }) => {
                self.same("dtype", da, db) && self.field("value", |cx| cx.expr(xa, xb))
            }
            (Expr::Ramp { base: ba, stride: sa, lanes: la }, Expr::Ramp { base: bb, stride: sb, lanes: lb }) => {
                self.same("lanes", la, lb)
                    && self.field("base", |cx| cx.expr(ba, bb))
                    && self.field("stride", |cx| cx.expr(sa, sb))
            }
            (Expr::Broadcast { value: xa, lanes: la }, Expr::Broadcast { value: xb, lanes: lb }) => {
                self.same("lanes", la, lb) && self.field("value", |cx| cx.expr(xa, xb))
            }
            (Expr::Let { var: va, value: xa, body: ba }, Expr::Let { var: vb, value: xb, body: bb }) => {
                self.field("value", |cx| cx.expr(xa, xb))
                    && self.field("var", |cx| cx.bind_var(va, vb))
                    && self.field("body", |cx| cx.expr(ba, bb))
            }
            (Expr::Load(x), Expr::Load(y)) => self.load(x, y),
            (Expr::Call(x), Expr::Call(y)) => self.call(x, y),
            _ => self.fail(print_expr(a), print_expr(b)),
        }
    }

    fn operands(&mut self, la: &Expr, ra: &Expr, lb: &Expr, rb: &Expr) -> bool {
        self.field("lhs", |cx| cx.expr(la, lb)) && self.field("rhs", |cx| cx.expr(ra, rb))
    }

    fn load(&mut self, a: &BufferLoad, b: &BufferLoad) -> bool {
        self.field("buffer", |cx| cx.use_buffer(&a.buffer, &b.buffer))
            && self.list("indices", &a.indices, &b.indices, |cx, x, y| cx.expr(x, y))
    }

    fn call(&mut self, a: &Call, b: &Call) -> bool {
        self.same_dbg("name", &a.name, &b.name)
            && self.same("dtype", a.dtype, b.dtype)
            && self.same("effect", a.effect, b.effect)
            && self.same("external", a.external, b.external)
            && self.list("args", &a.args, &b.args, |cx, x, y| cx.expr(x, y))
    }
}
