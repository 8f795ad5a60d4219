//! Substitution of variables and buffers, with optional renaming of every binder.
//!
//! Passes that copy a statement (a pipeline's peeled iterations, unrolling) must keep the
//! function in SSA form: each copy binds fresh variables and fresh buffers. `Substitution`
//! replaces uses of mapped variables by expressions and of mapped buffers by other buffers;
//! with `freshen`, every variable or buffer bound inside the rewritten tree is replaced by a
//! fresh copy (same name and type, new identity), and its uses follow. Buffers whose shape,
//! strides or offset mention a substituted variable are rebuilt so they stay consistent.
//!
//! The same walk can also re-index buffers (`reindex`: accesses to one buffer become accesses
//! to another with indices prepended, as a staging buffer's versions are selected) and apply a
//! [`NodeRewrite`] to every node of the program after its children (a folder), so that a copy
//! is substituted, re-indexed and simplified in one walk. The rewrite sees exactly the nodes a
//! `MutVisitor` walk (`walk_stmt_mut`) reaches, with substitutions and re-indexing already
//! applied below it: not provenance records or buffer definitions, and not the values put in
//! for variables, which the caller passes already rewritten. So the result equals substituting
//! and re-indexing first and running the rewrite over the result afterwards.
//!
//! A pass that makes many copies keeps one substitution: `restart` forgets the mappings of
//! the last copy but keeps the maps' storage, and `set_prefix` changes a re-indexing's
//! prefix in place. The maps hash identities with the crate's fixed multiplicative hasher
//! (every variable met is looked up; a seeded SipHash costs more than the rest of the visit).

use crate::buffer::{Buffer, BufferId, BufferRegion, Range};
use crate::expr::{BufferLoad, Expr};
use crate::stmt::{Allocate, AttrStmt, Block, BufferStore, IterVar, Origin, Stmt, StmtKind};
use crate::structural::IdMap;
use crate::var::{Var, VarId};
use crate::visit::{walk_expr_mut, walk_stmt_mut, MutVisitor};

/// A rewrite of one node at a time, applied bottom-up by a [`Substitution`]'s walk.
pub trait NodeRewrite {
    /// Rewrites `expr`, whose operands are already rewritten.
    fn expr(&mut self, expr: &mut Expr);
    /// Rewrites `stmt`, whose parts are already rewritten.
    fn stmt(&mut self, stmt: &mut Stmt);
}

/// The rewrite that leaves every node as it is (a plain substitution).
#[derive(Clone, Copy, Debug, Default)]
pub struct KeepNodes;

impl NodeRewrite for KeepNodes {
    fn expr(&mut self, _expr: &mut Expr) {}
    fn stmt(&mut self, _stmt: &mut Stmt) {}
}

/// Accesses to a buffer rewritten into accesses to another, with indices prepended.
#[derive(Clone, Debug)]
struct Reindex {
    to: Buffer,
    prefix: Vec<Expr>,
}

#[derive(Clone, Debug, Default)]
pub struct Substitution<R = KeepNodes> {
    vars: IdMap<VarId, Expr>,
    buffers: IdMap<BufferId, Buffer>,
    /// Accesses re-indexed, by the buffer accessed (after `buffers` is applied).
    reindexed: Vec<(BufferId, Reindex)>,
    /// Rename every binder met while rewriting.
    freshen: bool,
    /// Applied to every node of the program after its children.
    rewrite: R,
    /// Inside a provenance record or a buffer definition, where `rewrite` does not apply.
    outside_program: usize,
}

impl Substitution {
    pub fn new() -> Self {
        Substitution::default()
    }

    /// A substitution that also gives every binder a fresh identity.
    pub fn freshening() -> Self {
        Substitution { freshen: true, ..Substitution::default() }
    }

    /// The same substitution with `rewrite` applied to every node after its children.
    pub fn with_rewrite<R: NodeRewrite>(self, rewrite: R) -> Substitution<R> {
        let Substitution { vars, buffers, reindexed, freshen, rewrite: KeepNodes, outside_program } = self;
        Substitution { vars, buffers, reindexed, freshen, rewrite, outside_program }
    }
}

impl<R: NodeRewrite> Substitution<R> {
    /// Replaces `var` by `value`, which is put in as given: the rewrite does not apply to it.
    pub fn var(mut self, var: &Var, value: Expr) -> Self {
        self.set_var(var, value);
        self
    }

    /// [`Substitution::var`] on a substitution kept for many copies.
    pub fn set_var(&mut self, var: &Var, value: Expr) {
        self.vars.insert(var.id(), value);
    }

    /// Forgets every variable and buffer mapping (those set and those made by freshening),
    /// keeping the maps' storage, the re-indexing and the rewrite: the start of a new copy.
    pub fn restart(&mut self) {
        self.vars.clear();
        self.buffers.clear();
    }

    /// Replaces the prefix of the re-indexing of `from` (set by [`Substitution::reindex`])
    /// in place; does nothing if `from` is not re-indexed.
    pub fn set_prefix(&mut self, from: &Buffer, prefix: impl IntoIterator<Item = Expr>) {
        let id = from.id();
        if let Some((_, r)) = self.reindexed.iter_mut().find(|(f, _)| *f == id) {
            r.prefix.clear();
            r.prefix.extend(prefix);
        }
    }

    pub fn buffer(mut self, from: &Buffer, to: Buffer) -> Self {
        self.buffers.insert(from.id(), to);
        self
    }

    /// Also rewrites every access to `from` (loads, stores, block regions) into an access to
    /// `to` with `prefix` prepended to its indices (`B[i]` -> `B_versioned[slot, i]`). The
    /// prefix is put in as given: the rewrite does not apply to it.
    pub fn reindex(mut self, from: &Buffer, to: &Buffer, prefix: Vec<Expr>) -> Self {
        self.reindexed.push((from.id(), Reindex { to: to.clone(), prefix }));
        self
    }

    pub fn apply_stmt(&mut self, stmt: &mut Stmt) {
        self.mutate_stmt(stmt);
    }

    pub fn apply_expr(&mut self, expr: &mut Expr) {
        self.mutate_expr(expr);
    }

    /// A rewritten copy of `stmt`: the same result as cloning it and applying the
    /// substitution to the clone ([`Substitution::apply_stmt`]), built in one walk over the
    /// borrowed original (see [`Substitution::copy_stmt`]).
    pub fn stmt(&mut self, stmt: &Stmt) -> Stmt {
        self.copy_stmt(stmt)
    }

    /// A rewritten copy of `expr` (as [`Substitution::stmt`]).
    pub fn expr(&mut self, expr: &Expr) -> Expr {
        self.copy_expr(expr)
    }

    /// Copies `expr` with the substitution applied, node by node from the original: the
    /// kinds a copied loop body is made of are built directly, and any other kind (binders
    /// of `Let`, calls, vectors) is cloned and rewritten in place, which is what
    /// `mutate_expr` does to the clone. Each built node visits its parts in `mutate_expr`'s
    /// order and gets the rewrite after them, so the two agree node for node.
    fn copy_expr(&mut self, expr: &Expr) -> Expr {
        let mut out = match expr {
            Expr::Var(v) => {
                // The value is put in as given.
                return self.vars.get(&v.id()).cloned().unwrap_or_else(|| Expr::Var(v.clone()));
            }
            Expr::Binary { op, lhs, rhs } => {
                let (lhs, rhs) = self.copy_pair(lhs, rhs);
                Expr::Binary { op: *op, lhs, rhs }
            }
            Expr::Cmp { op, lhs, rhs } => {
                let (lhs, rhs) = self.copy_pair(lhs, rhs);
                Expr::Cmp { op: *op, lhs, rhs }
            }
            Expr::Logic { op, lhs, rhs } => {
                let (lhs, rhs) = self.copy_pair(lhs, rhs);
                Expr::Logic { op: *op, lhs, rhs }
            }
            Expr::Not(value) => Expr::Not(Box::new(self.copy_expr(value))),
            Expr::Cast { dtype, value } => Expr::Cast { dtype: *dtype, value: Box::new(self.copy_expr(value)) },
            Expr::Load(load) => {
                let (buffer, indices) = self.copy_access(&load.buffer, &load.indices);
                Expr::Load(BufferLoad { buffer, indices })
            }
            _ => {
                let mut out = expr.clone();
                self.mutate_expr(&mut out);
                return out;
            }
        };
        if self.outside_program == 0 {
            self.rewrite.expr(&mut out);
        }
        out
    }

    fn copy_pair(&mut self, lhs: &Expr, rhs: &Expr) -> (Box<Expr>, Box<Expr>) {
        let lhs = Box::new(self.copy_expr(lhs));
        (lhs, Box::new(self.copy_expr(rhs)))
    }

    /// A copied access (a load's or a store's): the buffer mapped, then re-indexed, and the
    /// indices copied with the re-indexing's prefix in front, in one allocation of the final
    /// size (`mutate_buffer`, the indices, then `reindex_access`, as the in-place walk does).
    fn copy_access(&mut self, buffer: &Buffer, indices: &[Expr]) -> (Buffer, Vec<Expr>) {
        let mut buffer = buffer.clone();
        self.mutate_buffer(&mut buffer);
        let prefix = self.reindexing(&buffer).map_or(0, |r| r.prefix.len());
        let mut out = Vec::with_capacity(prefix + indices.len());
        if let Some(r) = self.reindexing(&buffer) {
            out.extend(r.prefix.iter().cloned());
        }
        for index in indices {
            let copied = self.copy_expr(index);
            out.push(copied);
        }
        if let Some(Reindex { to, .. }) = self.reindexing(&buffer) {
            buffer = to.clone();
        }
        (buffer, out)
    }

    /// Copies `stmt` with the substitution applied (see [`Substitution::copy_expr`]): stores,
    /// sequences, attributes, evaluations and blocks are built directly, in `mutate_stmt`'s
    /// order (the provenance record first, then the parts, then the rewrite); any other kind
    /// is cloned and rewritten in place.
    fn copy_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let (origin, kind) = match &stmt.kind {
            StmtKind::Store(store) => {
                let origin = self.copy_origin(stmt);
                // The re-indexing depends on the buffer only, so the value may come after.
                let (buffer, indices) = self.copy_access(&store.buffer, &store.indices);
                let value = self.copy_expr(&store.value);
                (origin, StmtKind::Store(BufferStore { buffer, indices, value }))
            }
            StmtKind::Seq(stmts) => {
                let origin = self.copy_origin(stmt);
                (origin, StmtKind::Seq(stmts.iter().map(|s| self.copy_stmt(s)).collect()))
            }
            StmtKind::Attr(AttrStmt { node, key, value, body }) => {
                let origin = self.copy_origin(stmt);
                let node = node.as_ref().map(|n| self.copy_expr(n));
                let value = self.copy_expr(value);
                let body = Box::new(self.copy_stmt(body));
                (origin, StmtKind::Attr(AttrStmt { node, key: key.clone(), value, body }))
            }
            StmtKind::Evaluate(e) => {
                let origin = self.copy_origin(stmt);
                (origin, StmtKind::Evaluate(self.copy_expr(e)))
            }
            StmtKind::Block(block) => {
                let origin = self.copy_origin(stmt);
                (origin, StmtKind::Block(Box::new(self.copy_block(block))))
            }
            _ => {
                let mut out = stmt.clone();
                self.mutate_stmt(&mut out);
                return out;
            }
        };
        let mut out = Stmt { kind, span: stmt.span, origin };
        self.rewrite.stmt(&mut out);
        out
    }

    /// The statement's provenance record, renamed like the program (outside it: no rewrite).
    fn copy_origin(&mut self, stmt: &Stmt) -> Option<Box<Origin>> {
        let mut origin = stmt.origin.clone()?;
        self.outside_program += 1;
        self.mutate_expr(&mut origin.iteration);
        self.outside_program -= 1;
        Some(origin)
    }

    /// [`Substitution::block`] on a copy built from the original.
    fn copy_block(&mut self, block: &Block) -> Block {
        let mut iter_vars: Vec<IterVar> = block
            .iter_vars
            .iter()
            .map(|iv| {
                let min = self.copy_expr(&iv.min);
                let extent = self.copy_expr(&iv.extent);
                let binding = self.copy_expr(&iv.binding);
                IterVar { var: iv.var.clone(), min, extent, kind: iv.kind, binding }
            })
            .collect();
        for iv in &mut iter_vars {
            self.bind_var(&mut iv.var);
        }
        let mut alloc_buffers = block.alloc_buffers.clone();
        for alloc in &mut alloc_buffers {
            self.bind_buffer(&mut alloc.buffer);
        }
        let predicate = block.predicate.as_ref().map(|p| self.copy_expr(p));
        let reads = block.reads.as_ref().map(|regions| self.copy_regions(regions));
        let writes = block.writes.as_ref().map(|regions| self.copy_regions(regions));
        let init = block.init.as_ref().map(|init| self.copy_stmt(init));
        let body = self.copy_stmt(&block.body);
        Block {
            name: block.name.clone(),
            iter_vars,
            predicate,
            reads,
            writes,
            annotations: block.annotations.clone(),
            alloc_buffers,
            init,
            body,
        }
    }

    fn copy_regions(&mut self, regions: &[BufferRegion]) -> Vec<BufferRegion> {
        regions
            .iter()
            .map(|region| {
                let mut buffer = region.buffer.clone();
                self.mutate_buffer(&mut buffer);
                let prefix = self.reindexing(&buffer).map_or(0, |r| r.prefix.len());
                let mut ranges = Vec::with_capacity(prefix + region.region.len());
                if let Some(r) = self.reindexing(&buffer) {
                    ranges.extend(r.prefix.iter().cloned().map(Range::point));
                }
                for range in &region.region {
                    let min = self.copy_expr(&range.min);
                    let extent = self.copy_expr(&range.extent);
                    ranges.push(Range { min, extent });
                }
                if let Some(Reindex { to, .. }) = self.reindexing(&buffer) {
                    buffer = to.clone();
                }
                BufferRegion { buffer, region: ranges }
            })
            .collect()
    }

    /// Renames a binder when freshening.
    fn bind_var(&mut self, var: &mut Var) {
        if self.freshen {
            let fresh = var.fresh_copy();
            self.vars.insert(var.id(), Expr::Var(fresh.clone()));
            *var = fresh;
        }
    }

    /// A declared buffer: freshened, or rebuilt when its definition mentions substituted
    /// variables; uses then follow the mapping.
    fn bind_buffer(&mut self, buffer: &mut Buffer) {
        let mut spec = buffer.to_spec();
        let mut data = spec.data.clone();
        match self.vars.get(&data.id()) {
            Some(Expr::Var(v)) => data = v.clone(),
            _ if self.freshen => {
                let fresh = data.fresh_copy();
                self.vars.insert(data.id(), Expr::Var(fresh.clone()));
                data = fresh;
            }
            _ => {}
        }
        let mut changed = data != spec.data;
        self.outside_program += 1;
        for e in spec.shape.iter_mut().chain(spec.strides.iter_mut()).chain(std::iter::once(&mut spec.elem_offset)) {
            let before = e.clone();
            self.mutate_expr(e);
            changed |= *e != before;
        }
        self.outside_program -= 1;
        if changed || self.freshen {
            spec.data = data;
            let fresh = spec.build();
            self.buffers.insert(buffer.id(), fresh.clone());
            *buffer = fresh;
        }
    }

    fn block(&mut self, block: &mut Block) {
        for iv in &mut block.iter_vars {
            self.mutate_expr(&mut iv.min);
            self.mutate_expr(&mut iv.extent);
            self.mutate_expr(&mut iv.binding);
        }
        for iv in &mut block.iter_vars {
            self.bind_var(&mut iv.var);
        }
        for alloc in &mut block.alloc_buffers {
            self.bind_buffer(&mut alloc.buffer);
        }
        // Each part is rewritten exactly once: a substitution such as `i -> i + 1` must not
        // be applied twice, so the generic block walk (which revisits the bindings) is not used.
        if let Some(p) = &mut block.predicate {
            self.mutate_expr(p);
        }
        for region in block.reads.iter_mut().chain(block.writes.iter_mut()).flatten() {
            self.mutate_buffer(&mut region.buffer);
            for r in &mut region.region {
                self.mutate_expr(&mut r.min);
                self.mutate_expr(&mut r.extent);
            }
            self.reindex_region(region);
        }
        if let Some(init) = &mut block.init {
            self.mutate_stmt(init);
        }
        self.mutate_stmt(&mut block.body);
    }

    /// The re-indexing of accesses to `buffer`, if any (none outside the program).
    fn reindexing(&self, buffer: &Buffer) -> Option<&Reindex> {
        if self.reindexed.is_empty() || self.outside_program > 0 {
            return None;
        }
        let id = buffer.id();
        self.reindexed.iter().find(|(from, _)| *from == id).map(|(_, r)| r)
    }

    /// Re-indexes an access (a load or a store) if its buffer is re-indexed.
    fn reindex_access(&self, buffer: &mut Buffer, indices: &mut Vec<Expr>) {
        if let Some(Reindex { to, prefix }) = self.reindexing(buffer) {
            *buffer = to.clone();
            *indices = prepended(prefix.iter().cloned(), std::mem::take(indices));
        }
    }

    fn reindex_region(&self, region: &mut BufferRegion) {
        if let Some(Reindex { to, prefix }) = self.reindexing(&region.buffer) {
            region.buffer = to.clone();
            region.region = prepended(prefix.iter().cloned().map(Range::point), std::mem::take(&mut region.region));
        }
    }
}

/// `prefix` followed by `rest`, in one allocation of the final size (inserting at the front
/// of `rest` would grow it and shift its items).
fn prepended<T>(prefix: impl ExactSizeIterator<Item = T>, rest: Vec<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(prefix.len() + rest.len());
    out.extend(prefix);
    out.extend(rest);
    out
}

impl<R: NodeRewrite> MutVisitor for Substitution<R> {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Var(v) => {
                if let Some(value) = self.vars.get(&v.id()) {
                    *expr = value.clone();
                }
                // The value is put in as given.
                return;
            }
            Expr::Let { var, value, body } => {
                self.mutate_expr(value);
                self.bind_var(var);
                self.mutate_expr(body);
            }
            Expr::Load(load) => {
                self.mutate_buffer(&mut load.buffer);
                load.indices.iter_mut().for_each(|i| self.mutate_expr(i));
                self.reindex_access(&mut load.buffer, &mut load.indices);
            }
            _ => walk_expr_mut(self, expr),
        }
        if self.outside_program == 0 {
            self.rewrite.expr(expr);
        }
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        // A provenance record names iterations in terms of the variables around the
        // statement, so it follows the same renaming.
        if let Some(origin) = &mut stmt.origin {
            self.outside_program += 1;
            self.mutate_expr(&mut origin.iteration);
            self.outside_program -= 1;
        }
        match &mut stmt.kind {
            StmtKind::Let { var, value, body } => {
                self.mutate_expr(value);
                self.bind_var(var);
                self.mutate_stmt(body);
            }
            StmtKind::For(f) => {
                self.mutate_expr(&mut f.min);
                self.mutate_expr(&mut f.extent);
                self.bind_var(&mut f.var);
                self.mutate_stmt(&mut f.body);
            }
            StmtKind::LaunchThread { var, extent, body, .. } => {
                self.mutate_expr(extent);
                self.bind_var(var);
                self.mutate_stmt(body);
            }
            StmtKind::Allocate(Allocate { data, extents, condition, body, .. }) => {
                extents.iter_mut().for_each(|e| self.mutate_expr(e));
                self.mutate_expr(condition);
                self.bind_var(data);
                self.mutate_stmt(body);
            }
            StmtKind::AllocBuffer { buffer, body, .. } | StmtKind::DeclBuffer { buffer, body } => {
                self.bind_buffer(buffer);
                self.mutate_stmt(body);
            }
            StmtKind::Block(block) => self.block(block),
            StmtKind::Store(_) => {
                walk_stmt_mut(self, stmt);
                if let StmtKind::Store(store) = &mut stmt.kind {
                    self.reindex_access(&mut store.buffer, &mut store.indices);
                }
            }
            _ => walk_stmt_mut(self, stmt),
        }
        self.rewrite.stmt(stmt);
    }

    fn mutate_buffer(&mut self, buffer: &mut Buffer) {
        if let Some(to) = self.buffers.get(&buffer.id()) {
            *buffer = to.clone();
        }
    }
}

/// Rewrites every access to `from` into an access to `to` with `prefix` indices prepended
/// (`B[i]` -> `B_versioned[slot, i]`), in loads, stores and block regions.
pub fn prepend_indices(stmt: &mut Stmt, from: &Buffer, to: &Buffer, prefix: &[Expr]) {
    Substitution::new().reindex(from, to, prefix.to_vec()).apply_stmt(stmt);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::BufferSpec;
    use crate::dtype::DataType;
    use crate::stmt::{BufferStore, For, ForKind};

    fn store(buffer: &Buffer, index: Expr, value: Expr) -> Stmt {
        Stmt::synthetic(StmtKind::Store(BufferStore { buffer: buffer.clone(), indices: vec![index], value }))
    }

    #[test]
    fn substitutes_uses_and_freshens_binders() {
        let a = BufferSpec::new("A", DataType::INT32, vec![Expr::int(16)], "global").build();
        let i = Var::new("i", DataType::INT32);
        let j = Var::new("j", DataType::INT32);
        let inner = Stmt::synthetic(StmtKind::For(Box::new(For {
            var: j.clone(),
            min: Expr::int(0),
            extent: Expr::int(2),
            kind: ForKind::Serial,
            thread: None,
            annotations: Default::default(),
            body: store(&a, Expr::var(&i) + Expr::var(&j), Expr::int(0)),
        })));
        let mut subst = Substitution::freshening().var(&i, Expr::int(3));
        let copy = subst.stmt(&inner);
        let StmtKind::For(f) = &copy.kind else { panic!("still a loop") };
        assert_ne!(f.var, j, "the loop variable is fresh");
        let StmtKind::Store(s) = &f.body.kind else { panic!("store") };
        assert_eq!(s.indices[0], Expr::int(3) + Expr::var(&f.var));
    }

    #[test]
    fn prepends_version_indices() {
        let b = BufferSpec::new("B", DataType::INT32, vec![Expr::int(1)], "shared").build();
        let b2 = BufferSpec::new("B", DataType::INT32, vec![Expr::int(2), Expr::int(1)], "shared").build();
        let mut s = store(&b, Expr::int(0), Expr::load(&b, vec![Expr::int(0)]));
        prepend_indices(&mut s, &b, &b2, &[Expr::int(1)]);
        let expected = Stmt::synthetic(StmtKind::Store(BufferStore {
            buffer: b2.clone(),
            indices: vec![Expr::int(1), Expr::int(0)],
            value: Expr::load(&b2, vec![Expr::int(1), Expr::int(0)]),
        }));
        assert_eq!(s, expected);
    }
}
