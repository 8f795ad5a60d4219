//! The minimizer's measure of a program: smaller is simpler, compared field by field in
//! order, so every kept edit strictly decreases it and the search terminates.

use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_STAGE};
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{AnnValue, Expr, IRModule, Stmt, StmtKind};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Size {
    /// Statements (not counting sequences).
    pub statements: usize,
    /// Conditional statements.
    pub conditions: usize,
    /// Async stages over all pipelined loops.
    pub async_stages: usize,
    /// Sum of all pipeline stages.
    pub stage_sum: i64,
    /// Sum of constant loop extents.
    pub extent_sum: i64,
    /// Elements of all buffers with a constant shape.
    pub buffer_elements: i64,
    /// Expression nodes.
    pub expressions: usize,
}

impl Size {
    pub fn of(module: &IRModule) -> Size {
        let mut size = Measure::default();
        for func in &module.functions {
            for b in func.params.iter().filter_map(|p| p.buffer.as_ref()) {
                size.0.buffer_elements += b.const_len().unwrap_or(0);
            }
            size.visit_stmt(&func.body);
        }
        size.0
    }
}

#[derive(Default)]
struct Measure(Size);

impl Visitor for Measure {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let size = &mut self.0;
        match &stmt.kind {
            StmtKind::Seq(_) => {}
            StmtKind::If { .. } => {
                size.statements += 1;
                size.conditions += 1;
            }
            StmtKind::For(f) => {
                size.statements += 1;
                size.extent_sum += f.extent.as_int().unwrap_or(0);
                let list = |key: &str| f.annotations.get(key).and_then(AnnValue::as_int_list).unwrap_or_default();
                size.stage_sum += list(PIPELINE_STAGE).iter().sum::<i64>();
                size.async_stages += list(PIPELINE_ASYNC_STAGES).len();
            }
            StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } => {
                size.statements += 1;
                size.buffer_elements += buffer.const_len().unwrap_or(0);
            }
            _ => size.statements += 1,
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        self.0.expressions += 1;
        walk_expr(self, expr);
    }
}
