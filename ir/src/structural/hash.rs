//! Structural hashing: the same walk as `eq.rs`, feeding a fixed hasher.
//!
//! Invariants: fields are hashed in exactly the order `eq.rs` compares them; a variable or
//! buffer is numbered at its first occurrence and later occurrences hash that number, so
//! renaming changes nothing; free ones hash their name and type (never their process-local
//! id), so hashes of the same text agree across runs. Anything `eq.rs` ignores (names of bound
//! things, spans) is never hashed.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::{view, View};
use crate::annotation::{AnnValue, Annotations};
use crate::buffer::{Buffer, BufferId, BufferRegion};
use crate::dtype::DataType;
use crate::expr::Expr;
use crate::func::PrimFunc;
use crate::stmt::{Allocate, Block, For, Stmt, StmtKind};
use crate::var::{Var, VarId};

/// A small multiplicative hasher (the FxHash step) with a final avalanche, so that results
/// do not depend on a random seed or on the standard library's hasher choice.
#[derive(Clone, Debug, Default)]
pub struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    /// The splitmix64 finalizer: spreads the weak low bits of the multiplicative step.
    fn finish(&self) -> u64 {
        let mut z = self.hash;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Tags that keep different node kinds with equal payloads apart.
mod tag {
    pub const REF: u8 = 1;
    pub const NEW: u8 = 2;
    pub const FREE: u8 = 3;
    pub const SEQ: u8 = 4;
    pub const NONE: u8 = 5;
    pub const SOME: u8 = 6;
    pub const STMT: u8 = 7;
    pub const EXPR: u8 = 8;
    pub const ANN: u8 = 9;
}

/// First-occurrence numbering of identities.
#[derive(Debug)]
struct Numbering<K> {
    map: HashMap<K, u32>,
}

impl<K: Copy + Eq + Hash> Numbering<K> {
    fn new() -> Self {
        Numbering { map: HashMap::new() }
    }
    fn get(&self, k: K) -> Option<u32> {
        self.map.get(&k).copied()
    }
    fn assign(&mut self, k: K) {
        let n = u32::try_from(self.map.len()).unwrap_or(u32::MAX);
        self.map.insert(k, n);
    }
}

/// Whether a buffer declaration binds the bare variables of its shape (see `eq.rs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DeclSite {
    Param,
    Body,
}

pub(super) struct HashCx {
    vars: Numbering<VarId>,
    bufs: Numbering<BufferId>,
    h: FxHasher,
}

impl HashCx {
    pub(super) fn new() -> Self {
        HashCx { vars: Numbering::new(), bufs: Numbering::new(), h: FxHasher::default() }
    }

    pub(super) fn finish(&self) -> u64 {
        self.h.finish()
    }

    fn put<T: Hash + ?Sized>(&mut self, value: &T) {
        value.hash(&mut self.h);
    }

    fn dtype(&mut self, dtype: DataType) {
        self.put(&dtype);
    }

    fn len(&mut self, n: usize) {
        self.put(&n);
    }

    fn option<T>(&mut self, value: Option<&T>, f: impl FnOnce(&mut Self, &T)) {
        match value {
            None => self.put(&tag::NONE),
            Some(v) => {
                self.put(&tag::SOME);
                f(self, v);
            }
        }
    }

    fn exprs(&mut self, items: &[Expr]) {
        self.len(items.len());
        items.iter().for_each(|e| self.expr(e));
    }

    // ---- variables and buffers -------------------------------------------------------------

    fn bind_var(&mut self, v: &Var) {
        match self.vars.get(v.id()) {
            Some(n) => self.put(&(tag::REF, n)),
            None => {
                self.put(&tag::NEW);
                self.dtype(v.dtype());
                self.vars.assign(v.id());
            }
        }
    }

    fn use_var(&mut self, v: &Var) {
        match self.vars.get(v.id()) {
            Some(n) => self.put(&(tag::REF, n)),
            None => {
                self.put(&tag::FREE);
                self.put(v.name());
                self.dtype(v.dtype());
                self.vars.assign(v.id());
            }
        }
    }

    fn bind_buffer(&mut self, b: &Buffer, site: DeclSite) {
        if let Some(n) = self.bufs.get(b.id()) {
            self.put(&(tag::REF, n));
            return;
        }
        self.put(&tag::NEW);
        self.bufs.assign(b.id());
        let node = b.node();
        self.bind_var(b.data());
        self.dtype(b.dtype());
        self.dims(b.shape(), site);
        self.dims(b.strides(), site);
        self.dim(b.elem_offset(), site);
        self.put(b.scope());
        self.put(&node.align);
        self.put(&node.offset_factor);
    }

    fn use_buffer(&mut self, b: &Buffer) {
        match self.bufs.get(b.id()) {
            Some(n) => self.put(&(tag::REF, n)),
            None => {
                self.put(&tag::FREE);
                self.put(b.name());
                self.bufs.assign(b.id());
            }
        }
    }

    fn dims(&mut self, items: &[Expr], site: DeclSite) {
        self.len(items.len());
        items.iter().for_each(|e| self.dim(e, site));
    }

    fn dim(&mut self, e: &Expr, site: DeclSite) {
        match (site, e) {
            (DeclSite::Param, Expr::Var(v)) => self.bind_var(v),
            _ => self.expr(e),
        }
    }

    // ---- functions and annotations ---------------------------------------------------------

    pub(super) fn func(&mut self, f: &PrimFunc) {
        self.put(&f.name);
        self.put(&(f.s_tir, f.private));
        self.len(f.params.len());
        f.params.iter().for_each(|p| self.bind_var(&p.var));
        for p in &f.params {
            self.option(p.buffer.as_ref(), |cx, b| cx.bind_buffer(b, DeclSite::Param));
        }
        self.annotations(&f.attrs);
        self.stmt(&f.body);
    }

    fn annotations(&mut self, a: &Annotations) {
        self.len(a.entries.len());
        for (k, v) in &a.entries {
            self.put(k);
            self.ann_value(v);
        }
    }

    fn ann_value(&mut self, v: &AnnValue) {
        self.put(&tag::ANN);
        std::mem::discriminant(v).hash(&mut self.h);
        match v {
            AnnValue::Int(i) => self.put(i),
            AnnValue::Float(x) => self.put(&x.to_bits()),
            AnnValue::Bool(b) => self.put(b),
            AnnValue::Str(s) => self.put(s),
            AnnValue::List(items) => {
                self.len(items.len());
                items.iter().for_each(|i| self.ann_value(i));
            }
            AnnValue::Dict(d) => self.annotations(d),
            AnnValue::Expr(e) => self.expr(e),
        }
    }

    // ---- statements ------------------------------------------------------------------------

    /// Hashes a statement, following tail bodies in a loop (as `eq.rs` does). The byte stream
    /// is what a recursive walk would produce, since a tail is the last thing hashed.
    pub(super) fn stmt(&mut self, s: &Stmt) {
        let mut cur = s;
        while let Some(tail) = self.stmt_step(cur) {
            cur = tail;
        }
    }

    fn stmt_step<'a>(&mut self, s: &'a Stmt) -> Option<&'a Stmt> {
        match view(s) {
            View::Seq(items) => {
                self.put(&tag::SEQ);
                self.len(items.len());
                let (last, rest) = items.split_last()?;
                rest.iter().for_each(|i| self.stmt(i));
                Some(*last)
            }
            View::One(one) => self.stmt_head(&one.kind),
        }
    }

    /// Hashes everything of a non-sequence statement but its tail, and returns the tail.
    fn stmt_head<'a>(&mut self, kind: &'a StmtKind) -> Option<&'a Stmt> {
        self.put(&tag::STMT);
        std::mem::discriminant(kind).hash(&mut self.h);
        match kind {
            StmtKind::Store(st) => {
                self.use_buffer(&st.buffer);
                self.exprs(&st.indices);
                self.expr(&st.value);
                None
            }
            StmtKind::Let { var, value, body } => {
                self.expr(value);
                self.bind_var(var);
                Some(body)
            }
            StmtKind::For(f) => {
                self.for_header(f);
                Some(&f.body)
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.expr(cond);
                self.stmt(then_case);
                self.option(else_case.as_deref(), |cx, e| cx.stmt(e));
                None
            }
            // Never reached through `view`, but hashed consistently all the same.
            StmtKind::Seq(items) => {
                self.len(items.len());
                items.iter().for_each(|i| self.stmt(i));
                None
            }
            StmtKind::Attr(a) => {
                self.put(&a.key);
                self.option(a.node.as_ref(), |cx, n| cx.expr(n));
                self.expr(&a.value);
                Some(&a.body)
            }
            StmtKind::Allocate(a) => {
                self.allocate_header(a);
                Some(&a.body)
            }
            StmtKind::AllocBuffer { buffer, annotations, body } => {
                self.bind_buffer(buffer, DeclSite::Body);
                self.annotations(annotations);
                Some(body)
            }
            StmtKind::DeclBuffer { buffer, body } => {
                self.bind_buffer(buffer, DeclSite::Body);
                Some(body)
            }
            StmtKind::Evaluate(e) => {
                self.expr(e);
                None
            }
            StmtKind::Barrier { scope } => {
                self.put(scope);
                None
            }
            StmtKind::LaunchThread { var, tag, extent, body } => {
                self.put(tag);
                self.expr(extent);
                self.bind_var(var);
                Some(body)
            }
            StmtKind::Block(b) => {
                self.block_header(b);
                Some(&b.body)
            }
        }
    }

    fn for_header(&mut self, f: &For) {
        self.expr(&f.min);
        self.expr(&f.extent);
        self.put(&f.kind);
        self.put(&f.thread);
        self.annotations(&f.annotations);
        self.bind_var(&f.var);
    }

    fn allocate_header(&mut self, a: &Allocate) {
        self.dtype(a.dtype);
        self.exprs(&a.extents);
        self.put(&a.scope);
        self.expr(&a.condition);
        self.annotations(&a.annotations);
        self.bind_var(&a.data);
    }

    fn block_header(&mut self, b: &Block) {
        self.put(&b.name);
        self.len(b.iter_vars.len());
        for iv in &b.iter_vars {
            self.expr(&iv.min);
            self.expr(&iv.extent);
            self.put(&iv.kind);
            self.expr(&iv.binding);
        }
        self.len(b.iter_vars.len());
        b.iter_vars.iter().for_each(|iv| self.bind_var(&iv.var));
        self.option(b.predicate.as_ref(), |cx, p| cx.expr(p));
        self.len(b.alloc_buffers.len());
        for alloc in &b.alloc_buffers {
            self.bind_buffer(&alloc.buffer, DeclSite::Body);
            self.annotations(&alloc.annotations);
        }
        self.option(b.reads.as_ref(), |cx, r| cx.regions(r));
        self.option(b.writes.as_ref(), |cx, r| cx.regions(r));
        self.annotations(&b.annotations);
        self.option(b.init.as_ref(), |cx, s| cx.stmt(s));
    }

    fn regions(&mut self, regions: &[BufferRegion]) {
        self.len(regions.len());
        for r in regions {
            self.use_buffer(&r.buffer);
            self.len(r.region.len());
            for range in &r.region {
                self.expr(&range.min);
                self.expr(&range.extent);
            }
        }
    }

    // ---- expressions -----------------------------------------------------------------------

    pub(super) fn expr(&mut self, e: &Expr) {
        self.put(&tag::EXPR);
        std::mem::discriminant(e).hash(&mut self.h);
        match e {
            Expr::Int { value, dtype } => {
                self.dtype(*dtype);
                self.put(value);
            }
            Expr::Float { value, dtype } => {
                self.dtype(*dtype);
                self.put(&value.to_bits());
            }
            Expr::Str(s) => self.put(s),
            Expr::Var(v) => self.use_var(v),
            Expr::Binary { op, lhs, rhs } => {
                self.put(op);
                self.expr(lhs);
                self.expr(rhs);
            }
            Expr::Cmp { op, lhs, rhs } => {
                self.put(op);
                self.expr(lhs);
                self.expr(rhs);
            }
            Expr::Logic { op, lhs, rhs } => {
                self.put(op);
                self.expr(lhs);
                self.expr(rhs);
            }
            Expr::Not(v) => self.expr(v),
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                self.expr(cond);
                self.expr(on_true);
                self.expr(on_false);
            }
            Expr::Cast { dtype, value } => {
                self.dtype(*dtype);
                self.expr(value);
            }
            Expr::Ramp { base, stride, lanes } => {
                self.put(lanes);
                self.expr(base);
                self.expr(stride);
            }
            Expr::Broadcast { value, lanes } => {
                self.put(lanes);
                self.expr(value);
            }
            Expr::Let { var, value, body } => {
                self.expr(value);
                self.bind_var(var);
                self.expr(body);
            }
            Expr::Load(load) => {
                self.use_buffer(&load.buffer);
                self.exprs(&load.indices);
            }
            Expr::Call(call) => {
                self.put(&call.name);
                self.dtype(call.dtype);
                self.put(&call.effect);
                self.put(&call.external);
                self.exprs(&call.args);
            }
        }
    }
}
