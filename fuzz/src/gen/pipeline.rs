//! Random pipelined loops: one loop whose statements form a producer/consumer graph through
//! staging buffers (global, shared or local) and global outputs, with stages, orders and async
//! stages that the pipeline pass must accept; or, now and then, a nested pipeline (`nested`) or an
//! irregular one that the pass may refuse (`irregular`).
//!
//! Arrays are sized for every iteration the loop can run, including the largest value a
//! symbolic extent is given in tests, so no access is ever out of bounds.

use arbitrary::{Result, Unstructured};
use tirproof_ir::{Buffer, DataType, Expr, IRModule, Var};

use super::ir::{allocate, float_buffer, module, thread_loop};
use super::irregular::irregular_program;
use super::loop_ir::{result_buffers, LoopIr};
use super::nested::nested_pipeline_program;
use super::plan::{plan_statements, PlanOptions, StmtPlan};
use super::schedule::{choose_annotations, PipelineAnnotations};
use super::shape::PipelineShape;
use super::GenConfig;

/// Constant extents: tiny, primes, powers of two and large ones.
const EXTENTS: [i64; 14] = [1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 31, 64, 97, 128];
/// Arrays are sized for the largest extent a symbolic loop is run with in tests.
pub(super) const SYMBOLIC_CAPACITY: i64 = 64;
/// One program in this many is a nested pipeline when the configuration allows it.
const NESTED_ONE_IN: u8 = 6;
/// One program in this many is an irregular pipeline when the configuration allows it.
const IRREGULAR_ONE_IN: u8 = 3;

/// A random module with one pipelined loop (or a nested pair of them), and its shape.
pub fn pipeline_program(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<(IRModule, PipelineShape)> {
    // Drawn so that running out of bytes (which yields the range's start) picks a flat loop.
    if cfg.nested && u.int_in_range(1..=NESTED_ONE_IN)? == NESTED_ONE_IN {
        return nested_pipeline_program(u, cfg);
    }
    if cfg.irregular() && u.int_in_range(1..=IRREGULAR_ONE_IN)? == IRREGULAR_ONE_IN {
        return irregular_program(u, cfg);
    }
    flat_program(u, cfg)
}

/// The sources of each planned statement, for choosing annotations.
pub(super) fn sources_of(plans: &[StmtPlan]) -> Vec<Vec<usize>> {
    plans.iter().map(|p| p.sources.clone()).collect()
}

/// The random choices of a flat pipeline besides its statements and annotations.
struct FlatChoices {
    extent: Option<i64>,
    min: i64,
    lanes: u16,
    threads: i64,
    staging_inside: bool,
    scope: &'static str,
}

fn flat_program(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<(IRModule, PipelineShape)> {
    let n = u.int_in_range(1..=cfg.max_stmts.max(1))?;
    let plans = plan_statements(u, n, PlanOptions { predicates: cfg.predicates, read_outputs: true })?;
    let annotations = choose_annotations(u, &sources_of(&plans), &[])?;
    let choices = flat_choices(u, cfg)?;
    let module = FlatLayout::new(&choices, &plans).module(&plans, &annotations);
    let statements = plans.iter().map(StmtPlan::shape).collect();
    let shape = PipelineShape {
        extent: choices.extent,
        min: choices.min,
        lanes: choices.lanes,
        threads: choices.threads,
        ..annotations.into_shape(statements, choices.scope)
    };
    Ok((module, shape))
}

fn flat_choices(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<FlatChoices> {
    let extent = if cfg.symbolic_extents && u.ratio(1, 6)? { None } else { Some(*u.choose(&EXTENTS)?) };
    let min = if u.ratio(1, 5)? { *u.choose(&[1i64, 3])? } else { 0 };
    let lanes = if cfg.vectors && u.ratio(1, 5)? { 4 } else { 1 };
    let threads = if cfg.threads && lanes == 1 && u.ratio(1, 5)? { *u.choose(&[2i64, 4])? } else { 1 };
    let staging_inside = u.arbitrary::<bool>()?;
    // Threads exchange staging data only through shared memory.
    let scope = if threads > 1 { "shared" } else { *u.choose(&["local", "shared", "global"])? };
    Ok(FlatChoices { extent, min, lanes, threads, staging_inside, scope })
}

/// The variables and buffers of a flat pipeline.
struct FlatLayout<'c> {
    choices: &'c FlatChoices,
    i: Var,
    tx: Option<Var>,
    n: Option<Var>,
    inputs: [Buffer; 2],
    /// Per statement: its staging buffer or its output.
    results: Vec<Buffer>,
}

impl<'c> FlatLayout<'c> {
    fn new(choices: &'c FlatChoices, plans: &[StmtPlan]) -> Self {
        let per_iteration = choices.threads * i64::from(choices.lanes);
        let iterations = choices.min + choices.extent.unwrap_or(SYMBOLIC_CAPACITY);
        let len = iterations * per_iteration;
        let results = result_buffers(plans, len, per_iteration, choices.scope);
        FlatLayout {
            choices,
            i: Var::new("i", DataType::INT32),
            tx: (choices.threads > 1).then(|| Var::new("tx", DataType::INT32)),
            n: choices.extent.is_none().then(|| Var::new("n", DataType::INT32)),
            inputs: [float_buffer("In0", len, "global"), float_buffer("In1", len, "global")],
            results,
        }
    }

    fn module(&self, plans: &[StmtPlan], annotations: &PipelineAnnotations) -> IRModule {
        let per_iteration = self.choices.threads * i64::from(self.choices.lanes);
        let mut element = Expr::var(&self.i) * Expr::int(per_iteration);
        if let Some(tx) = &self.tx {
            element = element + Expr::var(tx);
        }
        let extent = match (&self.n, self.choices.extent) {
            (Some(n), _) => Expr::var(n),
            (None, e) => Expr::int(e.unwrap_or(1)),
        };
        let pipeline = LoopIr {
            plans,
            annotations,
            var: self.i.clone(),
            min: Expr::int(self.choices.min),
            extent,
            lanes: self.choices.lanes,
            input_element: element.clone(),
            output_element: element,
            slot: self.tx.as_ref().map_or(Expr::int(0), Expr::var),
            inputs: self.inputs.clone(),
            results: self.results.clone(),
            accumulate: false,
            staging_inside: self.choices.staging_inside,
        };
        let mut body = pipeline.pipelined_loop();
        if !self.choices.staging_inside {
            body = allocate(&pipeline.staging_buffers(), body);
        }
        if let Some(tx) = &self.tx {
            body = thread_loop(tx, self.choices.threads, body);
        }
        let outputs = plans.iter().zip(&self.results).filter(|(p, _)| p.sink).map(|(_, b)| b.clone());
        let params: Vec<Buffer> = self.inputs.iter().cloned().chain(outputs).collect();
        module(&params, self.n.as_slice(), body)
    }
}
