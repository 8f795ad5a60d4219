//! The IR of one planned pipelined loop, wherever it sits (alone, under a thread binding, or
//! inside an outer pipeline).
//!
//! The caller says where this iteration's data lives: the element of the inputs and outputs,
//! and this thread's slot in the staging buffers (indices that do not depend on the loop
//! variable, so the pass versions them). Each statement stores
//! `input * (constant + results of its sources)` (or just the sum when it reads no input) into
//! its staging slot or its output element; accumulating outputs add to what they hold.

use tirproof_ir::{Buffer, BufferStore, CmpOp, DataType, Expr, Stmt, StmtKind, Var};

use super::ir::{allocate, float_buffer, pipeline_annotations, serial_loop};
use super::plan::StmtPlan;
use super::schedule::PipelineAnnotations;

/// Per statement, where its result goes: `Out{k}` (global, `output_len` elements) for a sink,
/// else `S{k}` (`staging_len` elements in `scope`).
pub(super) fn result_buffers(plans: &[StmtPlan], output_len: i64, staging_len: i64, scope: &str) -> Vec<Buffer> {
    let result = |(k, plan): (usize, &StmtPlan)| {
        if plan.sink {
            float_buffer(format!("Out{k}"), output_len, "global")
        } else {
            float_buffer(format!("S{k}"), staging_len, scope)
        }
    };
    plans.iter().enumerate().map(result).collect()
}

/// Everything needed to emit one pipelined loop.
pub(super) struct LoopIr<'a> {
    pub plans: &'a [StmtPlan],
    pub annotations: &'a PipelineAnnotations,
    pub var: Var,
    pub min: Expr,
    pub extent: Expr,
    /// Lanes of every access (1, or a vector width).
    pub lanes: u16,
    /// This iteration's element of the inputs, before widening to `lanes`.
    pub input_element: Expr,
    /// This iteration's element of the outputs, before widening to `lanes`.
    pub output_element: Expr,
    /// This thread's slot in a staging buffer, before widening to `lanes`.
    pub slot: Expr,
    /// The two inputs statements may read.
    pub inputs: [Buffer; 2],
    /// Per statement: its staging buffer or (for a sink) its output.
    pub results: Vec<Buffer>,
    /// Outputs accumulate (`C[e] = C[e] + value`) instead of being overwritten.
    pub accumulate: bool,
    /// Staging buffers are allocated inside the loop body rather than by the caller.
    pub staging_inside: bool,
}

impl LoopIr<'_> {
    /// The annotated serial loop.
    pub fn pipelined_loop(&self) -> Stmt {
        let stmts: Vec<Stmt> = (0..self.plans.len()).map(|k| self.statement(k)).collect();
        let mut body = Stmt::seq(stmts);
        if self.staging_inside {
            body = allocate(&self.staging_buffers(), body);
        }
        serial_loop(&self.var, self.min.clone(), self.extent.clone(), pipeline_annotations(self.annotations), body)
    }

    /// The staging buffers of the loop, in statement order.
    pub fn staging_buffers(&self) -> Vec<Buffer> {
        self.plans.iter().zip(&self.results).filter(|(p, _)| !p.sink).map(|(_, b)| b.clone()).collect()
    }

    fn statement(&self, k: usize) -> Stmt {
        let Some(plan) = self.plans.get(k) else {
            return Stmt::nop();
        };
        let mut value = self.constant(plan.constant);
        for &p in &plan.sources {
            if let Some(result) = self.read_result(p) {
                value = value + result;
            }
        }
        if let Some(input) = plan.input.and_then(|a| self.inputs.get(a)) {
            value = Expr::load(input, vec![self.widen(self.input_element.clone())]) * value;
        }
        let Some(target) = self.results.get(k) else {
            return Stmt::nop();
        };
        let index = self.result_index(k);
        if plan.sink && self.accumulate {
            value = Expr::load(target, vec![index.clone()]) + value;
        }
        let store =
            Stmt::synthetic(StmtKind::Store(BufferStore { buffer: target.clone(), indices: vec![index], value }));
        match self.condition(plan) {
            Some(cond) => Stmt::synthetic(StmtKind::If { cond, then_case: Box::new(store), else_case: None }),
            None => store,
        }
    }

    fn read_result(&self, p: usize) -> Option<Expr> {
        let buffer = self.results.get(p)?;
        Some(Expr::load(buffer, vec![self.result_index(p)]))
    }

    /// Where statement `k` stores: its staging slot, or its output element.
    fn result_index(&self, k: usize) -> Expr {
        let sink = self.plans.get(k).is_some_and(|p| p.sink);
        self.widen(if sink { self.output_element.clone() } else { self.slot.clone() })
    }

    /// The conjunction of every condition guarding a statement.
    fn condition(&self, plan: &StmtPlan) -> Option<Expr> {
        plan.conditions
            .iter()
            .map(|&(m, r)| Expr::cmp(CmpOp::Ne, Expr::floormod(Expr::var(&self.var), Expr::int(m)), Expr::int(r)))
            .reduce(Expr::and)
    }

    fn widen(&self, base: Expr) -> Expr {
        if self.lanes > 1 {
            Expr::ramp(base, Expr::int(1), self.lanes)
        } else {
            base
        }
    }

    fn constant(&self, value: f64) -> Expr {
        let c = Expr::float(value, DataType::FLOAT32);
        if self.lanes > 1 {
            Expr::broadcast(c, self.lanes)
        } else {
            c
        }
    }
}
