//! The checker's traversal: visits every statement and expression once, in source order,
//! maintaining the scope and delegating each rule family to its own file.
//!
//! Invariants: a statement's tail (the body of a let, loop, attribute, allocation,
//! declaration, launch or block, or the last item of a sequence) is walked in a loop rather
//! than by recursion, and all the scopes the loop opened are closed together when the chain
//! ends, which is equivalent since nothing follows a tail inside its parent. Recursion (sequences, branches, block init,
//! expressions) is capped at `MAX_DEPTH`, reported once per function.

use std::collections::VecDeque;

use super::async_attrs::ChainFlag;
use super::scope::BindKind;
use super::Checker;
use crate::annotation::{AnnValue, Annotations};
use crate::buffer::{Buffer, BufferRegion};
use crate::expr::Expr;
use crate::func::PrimFunc;
use crate::int_arith::const_value;
use crate::stmt::{Allocate, AttrStmt, Block, For, Stmt, StmtKind};

/// The deepest recursion the checker follows (the parser caps nesting at 200).
pub(super) const MAX_DEPTH: usize = 400;

/// Where a buffer is declared, which decides how its data variable comes into scope.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DeclSite {
    /// In the buffer map: binds its data variable and the bare variables of its shape.
    Param,
    /// `AllocBuffer` or a block allocation: binds a new data variable.
    Alloc,
    /// `DeclBuffer`: reuses a data variable that is already in scope.
    Decl,
}

impl Checker {
    pub(super) fn func(&mut self, f: &PrimFunc) {
        for p in &f.params {
            self.bind_var(&p.var, BindKind::Param);
        }
        for b in f.param_buffers() {
            self.declare(b, DeclSite::Param);
        }
        self.annotation_exprs(&f.attrs);
        self.stmt(&f.body);
    }

    /// Enters one level of recursion; false (reported once) when the cap is reached.
    fn descend(&mut self) -> bool {
        if self.depth < MAX_DEPTH {
            self.depth += 1;
            return true;
        }
        if !self.too_deep {
            self.too_deep = true;
            self.error(format!("the program nests deeper than {MAX_DEPTH} levels; the deeper part is not checked"));
        }
        false
    }

    fn ascend(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        if !self.descend() {
            return;
        }
        let mark = self.scope.mark();
        let outer_span = self.span;
        let mut chain = VecDeque::new();
        let mut cur = Some(s);
        while let Some(st) = cur {
            if st.span.is_known() {
                self.span = st.span;
            }
            cur = self.stmt_step(st, &mut chain);
        }
        self.scope.restore(mark);
        self.span = outer_span;
        self.ascend();
    }

    /// Checks one statement's own parts and returns its tail body, if it has one.
    fn stmt_step<'s>(&mut self, s: &'s Stmt, chain: &mut VecDeque<ChainFlag>) -> Option<&'s Stmt> {
        match &s.kind {
            StmtKind::Attr(a) => {
                if chain.is_empty() {
                    *chain = super::async_attrs::pair_chain(s);
                }
                let flag = chain.pop_front().unwrap_or(ChainFlag::Paired);
                self.attr(a, flag);
                return Some(&a.body);
            }
            _ => chain.clear(),
        }
        match &s.kind {
            StmtKind::Store(st) => {
                self.use_buffer(&st.buffer);
                self.check_store(st);
                st.indices.iter().for_each(|i| self.expr(i));
                self.expr(&st.value);
                None
            }
            StmtKind::Let { var, value, body } => {
                self.expr(value);
                self.check_let_types(var, value);
                self.bind_var(var, BindKind::Let);
                Some(body)
            }
            StmtKind::For(f) => {
                self.for_header(f);
                Some(&f.body)
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.expr(cond);
                self.expect_bool(cond, "condition of `if`");
                self.stmt(then_case);
                if let Some(e) = else_case {
                    self.stmt(e);
                }
                None
            }
            StmtKind::Seq(items) => {
                let (last, rest) = items.split_last()?;
                rest.iter().for_each(|i| self.stmt(i));
                Some(last)
            }
            StmtKind::Allocate(a) => {
                self.allocate_header(a);
                Some(&a.body)
            }
            StmtKind::AllocBuffer { buffer, annotations, body } => {
                self.annotation_exprs(annotations);
                self.declare(buffer, DeclSite::Alloc);
                Some(body)
            }
            StmtKind::DeclBuffer { buffer, body } => {
                self.declare(buffer, DeclSite::Decl);
                Some(body)
            }
            StmtKind::Evaluate(e) => {
                self.expr(e);
                None
            }
            StmtKind::Barrier { .. } => None,
            StmtKind::LaunchThread { var, tag, extent, body } => {
                self.check_launch(var, tag, extent);
                self.expr(extent);
                self.expect_int(extent, format_args!("extent of thread launch `{var}`"));
                self.bind_var(var, BindKind::Launch);
                Some(body)
            }
            StmtKind::Block(b) => {
                self.block_header(b);
                Some(&b.body)
            }
            StmtKind::Attr(_) => None,
        }
    }

    fn attr(&mut self, a: &AttrStmt, flag: ChainFlag) {
        if let Some(node) = &a.node {
            self.expr(node);
        }
        self.expr(&a.value);
        self.check_async_attr(a, flag);
    }

    fn for_header(&mut self, f: &For) {
        self.check_loop_kind(f);
        self.expr(&f.min);
        self.expr(&f.extent);
        self.check_loop_types(f);
        self.annotation_exprs(&f.annotations);
        self.check_loop_annotations(f);
        self.bind_var(&f.var, BindKind::Loop);
    }

    fn allocate_header(&mut self, a: &Allocate) {
        for (d, e) in a.extents.iter().enumerate() {
            self.expr(e);
            self.expect_int(e, format_args!("extent {d} of allocation `{}`", a.data));
            if let Some(n) = const_value(e).filter(|&n| n < 0) {
                self.error(format!("extent {d} of allocation `{}` is negative ({n})", a.data));
            }
        }
        self.expr(&a.condition);
        self.expect_bool(&a.condition, format_args!("condition of allocation `{}`", a.data));
        self.annotation_exprs(&a.annotations);
        self.bind_var(&a.data, BindKind::AllocData);
    }

    fn block_header(&mut self, b: &Block) {
        for iv in &b.iter_vars {
            self.expr(&iv.min);
            self.expr(&iv.extent);
            self.expr(&iv.binding);
            self.check_iter_var_types(iv);
        }
        for iv in &b.iter_vars {
            self.bind_var(&iv.var, BindKind::IterVar);
        }
        if let Some(p) = &b.predicate {
            self.expr(p);
            self.expect_bool(p, "`T.where` predicate");
        }
        for alloc in &b.alloc_buffers {
            self.annotation_exprs(&alloc.annotations);
            self.declare(&alloc.buffer, DeclSite::Alloc);
        }
        for region in b.reads.iter().chain(&b.writes).flatten() {
            self.region(region);
        }
        self.annotation_exprs(&b.annotations);
        self.check_block_async(b);
        if let Some(init) = &b.init {
            self.stmt(init);
        }
    }

    fn region(&mut self, r: &BufferRegion) {
        self.use_buffer(&r.buffer);
        for range in &r.region {
            self.expr(&range.min);
            self.expr(&range.extent);
        }
        self.check_region_types(r);
    }

    /// Brings a buffer into scope: its data variable, its shape, then the buffer itself.
    fn declare(&mut self, b: &Buffer, site: DeclSite) {
        match site {
            DeclSite::Param if self.scope.has_var(b.data()) => {}
            DeclSite::Param | DeclSite::Alloc => self.bind_var(b.data(), BindKind::BufferData),
            DeclSite::Decl => self.use_decl_data(b),
        }
        for (d, e) in b.shape().iter().enumerate() {
            self.buffer_dim(e, site, format_args!("extent {d} of buffer `{b}`"));
            if let Some(n) = const_value(e).filter(|&n| n < 0) {
                self.error(format!("extent {d} of buffer `{b}` is negative ({n})"));
            }
        }
        for (d, e) in b.strides().iter().enumerate() {
            self.buffer_dim(e, site, format_args!("stride {d} of buffer `{b}`"));
        }
        self.buffer_dim(b.elem_offset(), site, format_args!("elem_offset of buffer `{b}`"));
        self.declare_buffer(b);
    }

    /// A shape, stride or offset entry: an integer expression; in a parameter buffer a bare
    /// variable not yet in scope is defined by it.
    fn buffer_dim(&mut self, e: &Expr, site: DeclSite, what: std::fmt::Arguments<'_>) {
        if let (DeclSite::Param, Expr::Var(x)) = (site, e) {
            if !self.scope.has_var(x) {
                self.bind_var(x, BindKind::ShapeVar);
            }
        } else {
            self.expr(e);
        }
        self.expect_int(e, what);
    }

    /// Expressions inside annotation values are checked like any other.
    fn annotation_exprs(&mut self, anns: &Annotations) {
        for (_, value) in anns.iter() {
            self.ann_value_exprs(value);
        }
    }

    fn ann_value_exprs(&mut self, value: &AnnValue) {
        match value {
            AnnValue::Expr(e) => self.expr(e),
            AnnValue::List(items) => {
                if self.descend() {
                    items.iter().for_each(|i| self.ann_value_exprs(i));
                    self.ascend();
                }
            }
            AnnValue::Dict(d) => {
                if self.descend() {
                    self.annotation_exprs(d);
                    self.ascend();
                }
            }
            AnnValue::Int(_) | AnnValue::Float(_) | AnnValue::Bool(_) | AnnValue::Str(_) => {}
        }
    }

    /// Checks an expression: its own typing rule, then its operands; `Let` opens a scope.
    /// The left operands of a chain of binary operators are one level, walked in a loop in
    /// the order recursion would take (each node, then its left operand, then its right one),
    /// so a flat `a + b + ...` of any length neither hits `MAX_DEPTH` nor uses stack.
    pub(super) fn expr(&mut self, e: &Expr) {
        if !self.descend() {
            return;
        }
        let mut spine = Vec::new();
        let mut leaf = e;
        while let Some((lhs, _)) = binary_operands(leaf) {
            spine.push(leaf);
            leaf = lhs;
        }
        // The left operand types of the chain's nodes, bottom up, each from the one below.
        let mut left_types = Vec::with_capacity(spine.len());
        let mut below = leaf.dtype();
        for node in spine.iter().rev() {
            left_types.push(below);
            below = if matches!(node, Expr::Binary { .. }) { below } else { below.bool_like() };
        }
        for (node, l) in spine.iter().zip(left_types.iter().rev()) {
            self.check_operator_node(node, *l);
        }
        self.expr_node(leaf);
        for rhs in spine.iter().rev().filter_map(|node| binary_operands(node).map(|(_, rhs)| rhs)) {
            self.expr(rhs);
        }
        self.ascend();
    }

    /// One node that does not start a chain: its own rule, then its operands.
    fn expr_node(&mut self, e: &Expr) {
        self.check_expr_node(e);
        match e {
            // Binary nodes are chains, walked by `expr`.
            Expr::Int { .. }
            | Expr::Float { .. }
            | Expr::Str(_)
            | Expr::Binary { .. }
            | Expr::Cmp { .. }
            | Expr::Logic { .. } => {}
            Expr::Var(v) => self.use_var(v),
            Expr::Not(x) | Expr::Cast { value: x, .. } | Expr::Broadcast { value: x, .. } => self.expr(x),
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                self.expr(cond);
                self.expr(on_true);
                self.expr(on_false);
            }
            Expr::Ramp { base, stride, .. } => {
                self.expr(base);
                self.expr(stride);
            }
            Expr::Let { var, value, body } => {
                self.expr(value);
                let mark = self.scope.mark();
                self.bind_var(var, BindKind::Let);
                self.expr(body);
                self.scope.restore(mark);
            }
            Expr::Load(load) => {
                self.use_buffer(&load.buffer);
                load.indices.iter().for_each(|i| self.expr(i));
            }
            Expr::Call(call) => {
                if let Some(Err(why)) = crate::async_op::decode_token_op(call) {
                    self.error(why);
                }
                call.args.iter().for_each(|a| self.expr(a));
            }
        }
    }
}

/// The operands of a binary, comparison or logical node.
fn binary_operands(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => Some((lhs, rhs)),
        _ => None,
    }
}
