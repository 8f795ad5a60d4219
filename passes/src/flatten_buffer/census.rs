//! What a function declares and uses, for flattening: every buffer definition (parameter,
//! `AllocBuffer`, `DeclBuffer`), every buffer used by a load or store with the statement
//! where it is first used, the buffers sharing each data variable, and the blocks that are
//! still there (flattening needs them lowered).
//!
//! Invariant: one walk, read-only; lists come out in walk (source) order.

use std::collections::{HashMap, HashSet};

use tirproof_ir::visit::{walk_buffer_def, walk_stmt, Visitor};
use tirproof_ir::{Buffer, BufferId, PrimFunc, Span, Stmt, StmtKind, VarId};

/// Where a buffer is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Site {
    Param,
    /// `AllocBuffer`, `DeclBuffer` (or a block allocation, which is refused).
    Body,
}

#[derive(Default)]
pub(super) struct Census {
    /// Defined buffers in definition order.
    pub defined: Vec<(Buffer, Site)>,
    /// Used buffers in first-use order, with the statement of that use.
    pub used: Vec<(Buffer, Span)>,
    used_ids: HashSet<BufferId>,
    defined_ids: HashSet<BufferId>,
    /// Every buffer over each data variable (definitions and uses).
    by_data: HashMap<VarId, Vec<Buffer>>,
    /// Blocks left in the body: name and position.
    pub blocks: Vec<(String, Span)>,
    in_params: bool,
    span: Span,
}

impl Census {
    pub(super) fn of(func: &PrimFunc) -> Census {
        let mut c = Census { in_params: true, span: func.span, ..Census::default() };
        for b in func.param_buffers() {
            c.visit_buffer_def(b);
        }
        c.in_params = false;
        c.visit_stmt(&func.body);
        c
    }

    pub(super) fn is_used(&self, buffer: &Buffer) -> bool {
        self.used_ids.contains(&buffer.id())
    }

    pub(super) fn is_defined(&self, buffer: &Buffer) -> bool {
        self.defined_ids.contains(&buffer.id())
    }

    /// The other buffers over `buffer`'s data variable, by name.
    pub(super) fn aliases_of(&self, buffer: &Buffer) -> Vec<String> {
        self.by_data
            .get(&buffer.data().id())
            .into_iter()
            .flatten()
            .filter(|b| b.id() != buffer.id())
            .map(|b| format!("`{b}`"))
            .collect()
    }

    fn note_data(&mut self, buffer: &Buffer) {
        let list = self.by_data.entry(buffer.data().id()).or_default();
        if !list.iter().any(|b| b.id() == buffer.id()) {
            list.push(buffer.clone());
        }
    }
}

impl Visitor for Census {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let outer = self.span;
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        if let StmtKind::Block(block) = &stmt.kind {
            self.blocks.push((block.name.clone(), self.span));
        }
        walk_stmt(self, stmt);
        self.span = outer;
    }

    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        if self.defined_ids.insert(buffer.id()) {
            let site = if self.in_params { Site::Param } else { Site::Body };
            self.defined.push((buffer.clone(), site));
            self.note_data(buffer);
        }
        walk_buffer_def(self, buffer);
    }

    fn visit_buffer_use(&mut self, buffer: &Buffer) {
        if self.used_ids.insert(buffer.id()) {
            self.used.push((buffer.clone(), self.span));
            self.note_data(buffer);
        }
    }
}
