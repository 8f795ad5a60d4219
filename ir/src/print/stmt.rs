//! Printing statements.
//!
//! A binding statement (let, attribute, allocation, buffer declaration, thread launch) that is
//! the last statement of its list prints in the bare form that scopes over the rest of the
//! list (`x: T.let[T.int32] = e`, `T.attr({...})`); anywhere else it prints as a `with` block,
//! so re-parsing gives back the same nesting. Chains of dictionary-form attributes print as
//! one `T.attr({...})`. Where TVM 0.27 has a spelling of its own, it is kept: a thread launch
//! always prints as `with T.launch_thread(...) as tx:`, and a declaration that only reshapes the
//! buffer owning its data as `B.view(...)`.

use crate::annotation::Annotations;
use crate::async_op::AsyncKey;
use crate::buffer::{Buffer, BufferRegion};
use crate::expr::Expr;
use crate::stmt::{Allocate, AttrStmt, Block, For, ForKind, IterKind, Stmt, StmtKind};

use super::expr::quote;
use super::Printer;

impl Printer {
    /// Prints `stmt` as an indented statement list; `pass` when it is empty.
    pub(crate) fn body(&mut self, stmt: &Stmt) {
        self.indent += 1;
        self.names.open_scope();
        let before = self.out.len();
        self.stmt_list(stmt, false);
        if self.out.len() == before {
            self.line("pass");
        }
        self.names.close_scope();
        self.indent -= 1;
    }

    /// Prints the statements of `stmt` at the current indentation. `guard_attr` forces a
    /// leading dictionary attribute into `with` form (inside a block it would read as the
    /// block's own annotations).
    pub(crate) fn stmt_list(&mut self, stmt: &Stmt, guard_attr: bool) {
        let items: &[Stmt] = match &stmt.kind {
            StmtKind::Seq(items) => items,
            _ => std::slice::from_ref(stmt),
        };
        for (i, item) in items.iter().enumerate() {
            let tail = i + 1 == items.len();
            let guarded = guard_attr && i == 0 && matches!(&item.kind, StmtKind::Attr(a) if a.node.is_none());
            self.stmt(item, tail && !guarded);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, tail: bool) {
        if let (true, Some(origin)) = (self.provenance, &stmt.origin) {
            let iteration = self.expr(&origin.iteration);
            self.line(&format!("# origin: statement {}, stage {}, iteration {iteration}", origin.stmt, origin.stage));
        }
        match &stmt.kind {
            StmtKind::Store(store) => {
                let lhs = format!("{}[{}]", self.names.buffer(&store.buffer), self.index_list(&store.indices));
                let rhs = self.expr(&store.value);
                self.line(&format!("{lhs} = {rhs}"));
            }
            StmtKind::For(f) => self.for_loop(f),
            StmtKind::If { cond, then_case, else_case } => self.if_chain(cond, then_case, else_case.as_deref(), "if"),
            StmtKind::Seq(_) => self.stmt_list(stmt, false),
            StmtKind::Evaluate(e) => {
                let text = format!("T.evaluate({})", self.expr(e));
                self.line(&text);
            }
            StmtKind::Barrier { scope } => self.line(&format!("T.tvm_storage_sync({})", quote(scope))),
            StmtKind::Block(block) => self.block(block),
            _ => self.binding(stmt, tail),
        }
    }

    /// Statements that bind a name or scope over a body.
    fn binding(&mut self, stmt: &Stmt, tail: bool) {
        match &stmt.kind {
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value);
                if tail {
                    let name = self.names.define_var(var);
                    self.line(&format!("{name}: T.let[T.{}] = {value}", var.dtype()));
                    self.stmt_list(body, false);
                } else {
                    self.scoped(&format!("T.LetStmt({value})"), |p| p.names.define_var(var), body);
                }
            }
            StmtKind::Attr(attr) => self.attr(attr, tail),
            StmtKind::Allocate(alloc) => self.allocate(alloc, tail),
            StmtKind::AllocBuffer { buffer, annotations, body } => {
                let mut args = self.buffer_args(buffer);
                if !annotations.is_empty() {
                    args.push(format!("annotations={}", self.annotations(annotations)));
                }
                let call = format!("T.alloc_buffer({})", args.join(", "));
                self.bind(&call, |p| p.names.define_buffer(buffer), body, tail);
            }
            StmtKind::DeclBuffer { buffer, body } => {
                if let Some(call) = self.view_call(buffer) {
                    self.bind(&call, |p| p.names.define_buffer(buffer), body, tail);
                    return;
                }
                let mut args = self.buffer_args(buffer);
                if self.names.knows_var(buffer.data()) {
                    args.push(format!("data={}", self.names.var(buffer.data())));
                }
                let call = format!("T.decl_buffer({})", args.join(", "));
                self.bind(&call, |p| p.names.define_buffer(buffer), body, tail);
            }
            StmtKind::LaunchThread { var, tag, extent, body } => {
                // Always the `with` form, as TVM prints a thread launch.
                let call = format!("T.launch_thread({}, {})", quote(tag), self.expr(extent));
                self.scoped(&call, |p| p.names.define_var(var), body);
            }
            _ => {}
        }
    }

    /// `B.view(shape)` (TVM's spelling) for a declaration that is exactly what reading it gives:
    /// the buffer that owns the data, with another shape, compact, the rest of its fields
    /// unchanged.
    fn view_call(&mut self, buffer: &Buffer) -> Option<String> {
        let base = self.names.owner_buffer(buffer.data())?.clone();
        let (b, v) = (base.node(), buffer.node());
        // TVM's `view` takes no `dtype`: a declaration of another type stays `T.decl_buffer`.
        let reshapes_only = v.strides.is_empty()
            && !v.shape.is_empty()
            && v.dtype == b.dtype
            && v.elem_offset == b.elem_offset
            && v.scope == b.scope
            && v.align == b.align
            && v.offset_factor == b.offset_factor;
        if !reshapes_only {
            return None;
        }
        let dims: Vec<String> = v.shape.iter().map(|e| self.expr(e)).collect();
        Some(format!("{}.view({})", self.names.buffer(&base), dims.join(", ")))
    }

    /// `name = call` over the rest of the list, or `with call as name:` around `body`.
    fn bind(&mut self, call: &str, define: impl FnOnce(&mut Self) -> String, body: &Stmt, tail: bool) {
        if tail {
            let name = define(self);
            self.line(&format!("{name} = {call}"));
            self.stmt_list(body, false);
        } else {
            self.scoped(call, define, body);
        }
    }

    fn scoped(&mut self, call: &str, define: impl FnOnce(&mut Self) -> String, body: &Stmt) {
        self.names.open_scope();
        let name = define(self);
        self.line(&format!("with {call} as {name}:"));
        self.body(body);
        self.names.close_scope();
    }

    fn attr(&mut self, attr: &AttrStmt, tail: bool) {
        let (head, body) = match &attr.node {
            Some(node) => {
                let head = format!("T.attr({}, {}, {})", self.expr(node), quote(&attr.key), self.expr(&attr.value));
                (head, &*attr.body)
            }
            None => self.attr_chain(attr),
        };
        if tail {
            self.line(&head);
            self.stmt_list(body, false);
        } else {
            self.line(&format!("with {head}:"));
            self.body(body);
        }
    }

    /// Merges nested dictionary-form attributes into one `T.attr({...})`.
    fn attr_chain<'a>(&mut self, first: &'a AttrStmt) -> (String, &'a Stmt) {
        let mut entries: Vec<String> = Vec::new();
        let mut keys: Vec<&str> = Vec::new();
        let mut current = first;
        loop {
            keys.push(&current.key);
            entries.push(format!("{}: {}", quote(&current.key), self.expr(&current.value)));
            match &current.body.kind {
                StmtKind::Attr(next) if next.node.is_none() && !keys.contains(&next.key.as_str()) => current = next,
                _ => break,
            }
        }
        (format!("T.attr({{{}}})", entries.join(", ")), &current.body)
    }

    fn allocate(&mut self, alloc: &Allocate, tail: bool) {
        let extents: Vec<String> = alloc.extents.iter().map(|e| self.expr(e)).collect();
        let mut args = vec![format!("[{}]", extents.join(", ")), format!("\"{}\"", alloc.dtype), quote(&alloc.scope)];
        if alloc.condition != Expr::bool(true) {
            args.push(self.expr(&alloc.condition));
        }
        if !alloc.annotations.is_empty() {
            args.push(format!("annotations={}", self.annotations(&alloc.annotations)));
        }
        let call = format!("T.allocate({})", args.join(", "));
        self.bind(&call, |p| p.names.define_var(&alloc.data), &alloc.body, tail);
    }

    fn if_chain(&mut self, cond: &Expr, then_case: &Stmt, else_case: Option<&Stmt>, keyword: &str) {
        let cond = self.expr(cond);
        self.line(&format!("{keyword} {cond}:"));
        self.body(then_case);
        match else_case.map(|e| &e.kind) {
            None => {}
            Some(StmtKind::If { cond, then_case, else_case }) => {
                self.if_chain(cond, then_case, else_case.as_deref(), "elif")
            }
            Some(_) => {
                self.line("else:");
                self.body(else_case.expect("matched Some"));
            }
        }
    }

    fn for_loop(&mut self, f: &For) {
        let range = self.loop_range(f);
        self.names.open_scope();
        let name = self.names.define_var(&f.var);
        self.line(&format!("for {name} in {range}:"));
        self.body(&f.body);
        self.names.close_scope();
    }

    /// `range(n)`, `range(a, b)` or `T.kind(a, b, thread=..., annotations=...)`.
    fn loop_range(&mut self, f: &For) -> String {
        let zero_min = f.min.as_int() == Some(0);
        let mut args = if zero_min {
            vec![self.expr(&f.extent)]
        } else {
            vec![self.expr(&f.min), self.interval_end(&f.min, &f.extent)]
        };
        if f.kind == ForKind::Serial && f.annotations.is_empty() {
            return format!("range({})", args.join(", "));
        }
        if let Some(thread) = &f.thread {
            args.push(format!("thread={}", quote(thread)));
        }
        if !f.annotations.is_empty() {
            args.push(format!("annotations={}", self.annotations(&f.annotations)));
        }
        format!("{}({})", f.kind.constructor(), args.join(", "))
    }

    fn block(&mut self, block: &Block) {
        self.line(&format!("with T.sblock({}):", quote(&block.name)));
        self.indent += 1;
        self.names.open_scope();
        self.block_header(block);
        if let Some(init) = &block.init {
            self.line("with T.init():");
            self.body(init);
        }
        // Async keys print as TVM prints its own async scopes in a block: `T.attr`, which TVM
        // reads as an attribute over the block's body (what they mean here too), after
        // `T.init`, which TVM wants before any such scope.
        let (protocol, _) = split_async(&block.annotations);
        if !protocol.is_empty() {
            let text = format!("T.attr({})", self.annotations(&protocol));
            self.line(&text);
        }
        let before = self.out.len();
        self.stmt_list(&block.body, true);
        if self.out.len() == before {
            self.line("pass");
        }
        self.names.close_scope();
        self.indent -= 1;
    }

    fn block_header(&mut self, block: &Block) {
        for iv in &block.iter_vars {
            let dom = if iv.min.as_int() == Some(0) {
                self.expr(&iv.extent)
            } else {
                format!("({}, {})", self.expr(&iv.min), self.interval_end(&iv.min, &iv.extent))
            };
            let binding = self.expr(&iv.binding);
            let kind = if iv.kind == IterKind::Spatial { "spatial" } else { "reduce" };
            let name = self.names.define_var(&iv.var);
            self.line(&format!("{name} = T.axis.{kind}({dom}, {binding})"));
        }
        if let Some(p) = &block.predicate {
            let text = format!("T.where({})", self.expr(p));
            self.line(&text);
        }
        if let Some(reads) = &block.reads {
            let text = format!("T.reads({})", self.regions(reads));
            self.line(&text);
        }
        if let Some(writes) = &block.writes {
            let text = format!("T.writes({})", self.regions(writes));
            self.line(&text);
        }
        let (_, others) = split_async(&block.annotations);
        if !others.is_empty() {
            let text = format!("T.sblock_attr({})", self.annotations(&others));
            self.line(&text);
        }
        for alloc in &block.alloc_buffers {
            let mut args = self.buffer_args(&alloc.buffer);
            if !alloc.annotations.is_empty() {
                args.push(format!("annotations={}", self.annotations(&alloc.annotations)));
            }
            let name = self.names.define_buffer(&alloc.buffer);
            self.line(&format!("{name} = T.sblock_alloc_buffer({})", args.join(", ")));
        }
    }

    fn regions(&mut self, regions: &[BufferRegion]) -> String {
        let parts: Vec<String> = regions.iter().map(|r| self.region(r)).collect();
        parts.join(", ")
    }

    fn region(&mut self, region: &BufferRegion) -> String {
        let dims: Vec<String> = region
            .region
            .iter()
            .map(|r| {
                if r.extent.as_int() == Some(1) {
                    self.expr(&r.min)
                } else {
                    format!("{}:{}", self.expr(&r.min), self.interval_end(&r.min, &r.extent))
                }
            })
            .collect();
        format!("{}[{}]", self.names.buffer(&region.buffer), dims.join(", "))
    }
}

/// A block's annotations split into the async protocol's keys (printed as `T.attr`, after
/// `T.init`) and the others (TVM's `T.sblock_attr`). Reading the two back gives the others
/// first, so when a protocol key comes before another key all print as one `T.attr`, which
/// keeps their order (and reads back the same).
fn split_async(annotations: &Annotations) -> (Annotations, Annotations) {
    let is_protocol = |key: &str| AsyncKey::parse(key).is_some();
    let keys: Vec<&str> = annotations.iter().map(|(key, _)| key).collect();
    if keys.windows(2).any(|pair| is_protocol(pair[0]) && !is_protocol(pair[1])) {
        return (annotations.clone(), Annotations::new());
    }
    let (mut protocol, mut others) = (Annotations::new(), Annotations::new());
    for (key, value) in annotations.iter() {
        let side = if is_protocol(key) { &mut protocol } else { &mut others };
        side.insert(key, value.clone());
    }
    (protocol, others)
}
