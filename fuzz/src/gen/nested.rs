//! Nested pipelines, shaped like a GEMM main loop: an outer pipelined loop over `k0` copies
//! one tile of each input it needs from global memory into a shared staging buffer (a serial
//! copy loop, or one vector store), and its last statement is an inner pipelined loop over the
//! tile (`k1`) whose statements form a random producer/consumer graph (as in a flat pipeline)
//! reading the tiles at `k1` and staging through local or shared buffers.
//!
//! The inner loop's outputs either get one element per (`k0`, `k1`), or accumulate over the
//! inner loop (`C[0] += ...` or `C[k0] += ...`) as a GEMM's accumulator does. Accumulating
//! statements never feed later ones: the pass cannot version an accumulator, so most stage
//! choices would (rightly) be refused. Tiles are only read by the inner loop, so its statement
//! is the one consumer of every copy, in the same or a later outer stage.
//!
//! The inner loop's outer stage is never async: async stages are for copies, and the pass
//! refuses a compound statement that reads (or rewrites) an element it wrote asynchronously
//! in the same iteration, which an accumulating inner loop does.

use arbitrary::{Result, Unstructured};
use tirproof_ir::{Annotations, Buffer, DataType, Expr, IRModule, Stmt, Var};

use super::ir::{allocate, float_buffer, module, pipeline_annotations, serial_loop, store};
use super::loop_ir::{result_buffers, LoopIr};
use super::pipeline::{sources_of, SYMBOLIC_CAPACITY};
use super::plan::{plan_statements, PlanOptions, StmtPlan};
use super::schedule::{choose_annotations, PipelineAnnotations};
use super::shape::{PipelineShape, StmtShape, Target};
use super::GenConfig;

/// Inner extents (tile sizes): shorter and longer than typical stage counts.
const TILES: [i64; 6] = [1, 2, 3, 4, 5, 8];
/// Outer extents, kept small since every outer iteration runs a whole inner loop.
const OUTER_EXTENTS: [i64; 9] = [1, 2, 3, 4, 5, 7, 8, 13, 16];
const INPUT_NAMES: [&str; 2] = ["A", "B"];

/// Where an inner statement's output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutputMode {
    /// `Out[k0 * tile + k1]`.
    PerElement,
    /// `C[0] += ...` over both loops.
    AccumulateAll,
    /// `C[k0] += ...` over the inner loop.
    AccumulatePerTile,
}

/// The random choices of a nested pipeline besides its statements and annotations.
struct NestedChoices {
    tile: i64,
    /// `None` for a symbolic outer extent.
    outer_extent: Option<i64>,
    output: OutputMode,
    vector_copies: bool,
    /// Tiles are allocated inside the outer loop body (else above the outer loop).
    tiles_inside: bool,
    /// Inner staging is allocated inside the inner loop body (else around the inner loop).
    inner_staging_inside: bool,
    inner_scope: &'static str,
}

/// A random nested pipeline and its (outer) shape, whose `inner` is the inner loop's.
/// `pipeline_program` returns one now and then when `cfg.nested` is set; this always does.
pub fn nested_pipeline_program(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<(IRModule, PipelineShape)> {
    let output = *u.choose(&[OutputMode::PerElement, OutputMode::AccumulateAll, OutputMode::AccumulatePerTile])?;
    let inner_n = u.int_in_range(1..=cfg.max_stmts.max(1))?;
    let options = PlanOptions { predicates: cfg.predicates, read_outputs: output == OutputMode::PerElement };
    let inner_plans = plan_statements(u, inner_n, options)?;
    let inner_annotations = choose_annotations(u, &sources_of(&inner_plans), &[])?;
    let tiles_used = tiles_used(&inner_plans);
    // The inner loop's statement comes after the copies; it stays synchronous (module docs).
    let inner_statement = tiles_used.len();
    let outer_annotations = choose_annotations(u, &outer_sources(inner_statement), &[inner_statement])?;
    let choices = nested_choices(u, cfg, output)?;
    let layout = NestedLayout::new(&choices, &inner_plans, &tiles_used);
    let module = layout.module(&inner_plans, &inner_annotations, &outer_annotations);
    let inner = PipelineShape {
        extent: Some(choices.tile),
        ..inner_annotations.into_shape(inner_plans.iter().map(StmtPlan::shape).collect(), choices.inner_scope)
    };
    let outer = PipelineShape {
        extent: choices.outer_extent,
        lanes: if choices.vector_copies { lanes_of(choices.tile) } else { 1 },
        inner: Some(Box::new(inner)),
        ..outer_annotations.into_shape(outer_statement_shapes(inner_statement), "shared")
    };
    Ok((module, outer))
}

fn nested_choices(u: &mut Unstructured<'_>, cfg: &GenConfig, output: OutputMode) -> Result<NestedChoices> {
    let tile = *u.choose(&TILES)?;
    let outer_extent = if cfg.symbolic_extents && u.ratio(1, 6)? { None } else { Some(*u.choose(&OUTER_EXTENTS)?) };
    let vector_copies = cfg.vectors && lanes_of(tile) > 1 && u.ratio(1, 3)?;
    Ok(NestedChoices {
        tile,
        outer_extent,
        output,
        vector_copies,
        tiles_inside: u.arbitrary()?,
        inner_staging_inside: u.arbitrary()?,
        inner_scope: u.choose(&["local", "shared"])?,
    })
}

/// The vector width a tile copy may use: the tile itself when it is a power of two above 1.
fn lanes_of(tile: i64) -> u16 {
    match tile {
        2 | 4 | 8 => tile as u16,
        _ => 1,
    }
}

/// Which inputs the inner statements read, in increasing order.
fn tiles_used(plans: &[StmtPlan]) -> Vec<usize> {
    (0..INPUT_NAMES.len()).filter(|a| plans.iter().any(|p| p.input == Some(*a))).collect()
}

/// One copy per tile, then the inner loop, which reads every tile.
fn outer_sources(copies: usize) -> Vec<Vec<usize>> {
    let mut sources = vec![Vec::new(); copies];
    sources.push((0..copies).collect());
    sources
}

fn outer_statement_shapes(copies: usize) -> Vec<StmtShape> {
    let copy = StmtShape { sources: Vec::new(), target: Target::Staging, predicated: false };
    let mut shapes = vec![copy; copies];
    shapes.push(StmtShape { sources: (0..copies).collect(), target: Target::Output, predicated: false });
    shapes
}

/// The variables and buffers of a nested pipeline.
struct NestedLayout<'c> {
    choices: &'c NestedChoices,
    k0: Var,
    k1: Var,
    n: Option<Var>,
    /// Global inputs, one per input name.
    globals: [Buffer; 2],
    /// Shared tiles, one per input name.
    tiles: [Buffer; 2],
    tiles_used: Vec<usize>,
    /// Per inner statement: its staging buffer or its output.
    results: Vec<Buffer>,
}

impl<'c> NestedLayout<'c> {
    fn new(choices: &'c NestedChoices, plans: &[StmtPlan], tiles_used: &[usize]) -> Self {
        let outer_len = choices.outer_extent.unwrap_or(SYMBOLIC_CAPACITY);
        let global = |name: &str| float_buffer(name, outer_len * choices.tile, "global");
        let tile = |name: &str| float_buffer(format!("{name}_shared"), choices.tile, "shared");
        let output_len = match choices.output {
            OutputMode::PerElement => outer_len * choices.tile,
            OutputMode::AccumulateAll => 1,
            OutputMode::AccumulatePerTile => outer_len,
        };
        let results = result_buffers(plans, output_len, 1, choices.inner_scope);
        NestedLayout {
            choices,
            k0: Var::new("k0", DataType::INT32),
            k1: Var::new("k1", DataType::INT32),
            n: choices.outer_extent.is_none().then(|| Var::new("n", DataType::INT32)),
            globals: INPUT_NAMES.map(global),
            tiles: INPUT_NAMES.map(tile),
            tiles_used: tiles_used.to_vec(),
            results,
        }
    }

    fn module(&self, plans: &[StmtPlan], inner: &PipelineAnnotations, outer: &PipelineAnnotations) -> IRModule {
        let mut stmts: Vec<Stmt> = self.tiles_used.iter().map(|&a| self.tile_copy(a)).collect();
        stmts.push(self.inner_statement(plans, inner));
        let used_tiles: Vec<Buffer> = self.tiles_used.iter().filter_map(|&a| self.tiles.get(a).cloned()).collect();
        let mut body = Stmt::seq(stmts);
        if self.choices.tiles_inside {
            body = allocate(&used_tiles, body);
        }
        let extent = self.n.as_ref().map_or_else(|| Expr::int(self.choices.outer_extent.unwrap_or(1)), Expr::var);
        let mut outer_loop = serial_loop(&self.k0, Expr::int(0), extent, pipeline_annotations(outer), body);
        if !self.choices.tiles_inside {
            outer_loop = allocate(&used_tiles, outer_loop);
        }
        let inputs = self.tiles_used.iter().filter_map(|&a| self.globals.get(a).cloned());
        let outputs = plans.iter().zip(&self.results).filter(|(p, _)| p.sink).map(|(_, b)| b.clone());
        let params: Vec<Buffer> = inputs.chain(outputs).collect();
        module(&params, self.n.as_slice(), outer_loop)
    }

    /// The copy of this iteration's tile of input `a` into its shared buffer.
    fn tile_copy(&self, a: usize) -> Stmt {
        let (Some(global), Some(tile)) = (self.globals.get(a), self.tiles.get(a)) else {
            return Stmt::nop();
        };
        let size = self.choices.tile;
        let start = Expr::var(&self.k0) * Expr::int(size);
        if self.choices.vector_copies {
            let lanes = lanes_of(size);
            let value = Expr::load(global, vec![Expr::ramp(start, Expr::int(1), lanes)]);
            return store(tile, Expr::ramp(Expr::int(0), Expr::int(1), lanes), value);
        }
        let j = Var::new("j", DataType::INT32);
        let value = Expr::load(global, vec![start + Expr::var(&j)]);
        let copy = store(tile, Expr::var(&j), value);
        serial_loop(&j, Expr::int(0), Expr::int(size), Annotations::new(), copy)
    }

    /// The inner pipelined loop, with its staging allocated around it when not inside it.
    fn inner_statement(&self, plans: &[StmtPlan], annotations: &PipelineAnnotations) -> Stmt {
        let output_element = match self.choices.output {
            OutputMode::PerElement => Expr::var(&self.k0) * Expr::int(self.choices.tile) + Expr::var(&self.k1),
            OutputMode::AccumulateAll => Expr::int(0),
            OutputMode::AccumulatePerTile => Expr::var(&self.k0),
        };
        let pipeline = LoopIr {
            plans,
            annotations,
            var: self.k1.clone(),
            min: Expr::int(0),
            extent: Expr::int(self.choices.tile),
            lanes: 1,
            input_element: Expr::var(&self.k1),
            output_element,
            slot: Expr::int(0),
            inputs: self.tiles.clone(),
            results: self.results.clone(),
            accumulate: self.choices.output != OutputMode::PerElement,
            staging_inside: self.choices.inner_staging_inside,
        };
        let inner_loop = pipeline.pipelined_loop();
        if self.choices.inner_staging_inside {
            inner_loop
        } else {
            allocate(&pipeline.staging_buffers(), inner_loop)
        }
    }
}
