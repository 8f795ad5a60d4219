//! Irregular pipelines: the shapes `plan.rs` keeps out because the pipeline pass may refuse
//! them (with a located diagnostic) or, worse, mishandle them.
//!
//! One pipelined loop stages data through one buffer `B` between writers and one consumer
//! that writes `Out`. Each of these is drawn behind its own `GenConfig` switch:
//! - writers guarded by the iteration (`i % k == r`, `i < last`) or by data (`In0[e] > 0.5`),
//!   with the consumer under the same guard, none, or another one;
//! - `B` allocated inside the loop body (then zeroed by a first statement) or above the loop
//!   (then zeroed once before it, so a consumer that runs when its writers did not reads the
//!   previous value, never uninitialized memory);
//! - a ring of 2 or 4 slots indexed by the loop variable, the consumer reading the slot of
//!   another iteration (`B[(i + 1) % 2]`, `B[(i + 3) % 4]`), only with `B` above the loop;
//! - or a sliding window: writers over an inner loop `w` write `B[i + w]`, so iteration
//!   `i + 1` rewrites what iteration `i` wrote, and the consumer reads `B[i]` or `B[i + 1]`;
//! - a second writer, of the same element (after the first) or of another one, in the first
//!   writer's stage or a later one;
//! - a consumer that also writes the element it read;
//! - threads (`threadIdx.x`, 2 to 8, and maybe several blocks through `blockIdx.x`) where the
//!   consumer reads its neighbour's region of `B`, with or without the barriers that makes safe.
//!
//! Every access is in bounds. A program without its barriers races, and one whose consumer
//! runs without its writers may read a stale value: both are meaningful pass inputs; an
//! original that faults is not the pass's fault (the chain runs these in `InputMode::Unknown`).

use std::collections::BTreeSet;

use arbitrary::{Result, Unstructured};
use tirproof_ir::{Annotations, Axis, Buffer, CmpOp, DataType, Expr, IRModule, Stmt, StmtKind, ThreadTag, Var};

use super::ir::{allocate, bound_loop, float_buffer, module, pipeline_annotations, serial_loop, store};
use super::pipeline::SYMBOLIC_CAPACITY;
use super::schedule::{choose_annotations, PipelineAnnotations};
use super::shape::{Pattern, PipelineShape, StmtShape, Target};
use super::GenConfig;

/// Constant extents: tiny ones and a few past the deepest pipeline.
const EXTENTS: [i64; 8] = [1, 2, 3, 4, 5, 7, 8, 13];
/// Elements of one slot of `B`: a second writer may write the other one.
const SLOT_ELEMENTS: i64 = 2;
/// Elements a window writer writes per iteration.
const WINDOW: i64 = 2;

/// What guards a writer (or the consumer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    /// `i % modulus == residue`.
    Residue { modulus: i64, residue: i64 },
    /// `i < last`: skipped only at the last iteration.
    BeforeLast,
    /// `In0[e] > 0.5`.
    Data,
}

impl Guard {
    fn pattern(self) -> Pattern {
        match self {
            Guard::Residue { .. } => Pattern::PredicatedOnIteration,
            Guard::BeforeLast => Pattern::SkipsLastIteration,
            Guard::Data => Pattern::PredicatedOnData,
        }
    }
}

/// The random choices of an irregular pipeline besides its annotations.
#[derive(Clone, Debug)]
struct Choices {
    /// `None` for a symbolic extent.
    extent: Option<i64>,
    threads: i64,
    blocks: i64,
    /// The consumer reads the next thread's region of `B`.
    exchange: bool,
    barriers: bool,
    /// Slots of the ring (1: no ring) and how many iterations ahead the consumer reads.
    slots: i64,
    read_ahead: i64,
    /// Writers write the window `B[i + w]`, `w` in `0..WINDOW` (instead of slots).
    window: bool,
    outside: bool,
    writer_guard: Option<Guard>,
    consumer_guard: Option<Guard>,
    /// A second writer, and whether it writes the first writer's element.
    second_writer: Option<bool>,
    consumer_writes: bool,
    scope: &'static str,
}

fn choose_guard(u: &mut Unstructured<'_>) -> Result<Guard> {
    Ok(match u.int_in_range(0u8..=2)? {
        0 => Guard::Residue { modulus: *u.choose(&[2i64, 3])?, residue: u.int_in_range(0..=1)? },
        1 => Guard::BeforeLast,
        _ => Guard::Data,
    })
}

fn choose(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<Choices> {
    let extent = if cfg.symbolic_extents && u.ratio(1, 6)? { None } else { Some(*u.choose(&EXTENTS)?) };
    let (threads, blocks) =
        if cfg.thread_exchange && u.arbitrary()? { (u.int_in_range(2..=8)?, u.int_in_range(1..=3)?) } else { (1, 1) };
    let barriers = threads > 1 && u.arbitrary()?;
    let outside = !cfg.staging_inside || (cfg.staging_outside && u.arbitrary()?);
    let ring = outside && cfg.other_iteration_slots && u.arbitrary()?;
    let window = outside && cfg.other_iteration_slots && !ring && threads == 1 && u.ratio(1, 3)?;
    let (slots, read_ahead) = match (ring, window) {
        (true, _) => *u.choose(&[(2i64, 1i64), (4, 3), (4, 1)])?,
        (false, true) => (1, u.int_in_range(0..=1)?),
        (false, false) => (1, 0),
    };
    let writer_guard = if cfg.predicated_producers && u.arbitrary()? { Some(choose_guard(u)?) } else { None };
    let consumer_guard = match (writer_guard, u.int_in_range(0u8..=2)?) {
        (Some(g), 0) => Some(g),
        (_, 1) => Some(choose_guard(u)?),
        _ => None,
    };
    let second_writer = if cfg.several_writers && u.arbitrary()? { Some(u.arbitrary()?) } else { None };
    let consumer_writes = cfg.consumer_writes && u.ratio(1, 3)?;
    let scope = if threads > 1 || blocks > 1 { "shared" } else { *u.choose(&["local", "shared", "global"])? };
    Ok(Choices {
        extent,
        threads,
        blocks,
        exchange: threads > 1,
        barriers,
        slots,
        read_ahead,
        window,
        outside,
        writer_guard,
        consumer_guard,
        second_writer,
        consumer_writes,
        scope,
    })
}

/// What each statement of the loop body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Zeroes this thread's region of `B` (only when `B` lives inside the body).
    Zero,
    FirstWriter,
    SecondWriter,
    Barrier,
    Consumer,
}

impl Choices {
    fn roles(&self) -> Vec<Role> {
        let mut roles = Vec::new();
        if !self.outside {
            roles.push(Role::Zero);
        }
        roles.push(Role::FirstWriter);
        if self.second_writer.is_some() {
            roles.push(Role::SecondWriter);
        }
        if self.barriers {
            roles.push(Role::Barrier);
        }
        roles.push(Role::Consumer);
        if self.barriers {
            roles.push(Role::Barrier);
        }
        roles
    }
}

/// A random irregular pipeline and its shape.
pub(super) fn irregular_program(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<(IRModule, PipelineShape)> {
    let choices = choose(u, cfg)?;
    let roles = choices.roles();
    // Every statement depends on all before it, so stages never decrease and a statement
    // comes after the earlier ones of its stage; barriers stay synchronous.
    let sources: Vec<Vec<usize>> = (0..roles.len()).map(|k| (0..k).collect()).collect();
    let barriers: Vec<usize> = (0..roles.len()).filter(|&k| roles.get(k) == Some(&Role::Barrier)).collect();
    let annotations = choose_annotations(u, &sources, &barriers)?;
    let layout = Layout::new(&choices);
    let module = layout.module(&roles, &annotations);
    let patterns = patterns(&choices, &roles, &annotations);
    let statements = roles.iter().enumerate().map(|(k, role)| statement_shape(&choices, k, *role)).collect();
    let shape = PipelineShape {
        extent: choices.extent,
        threads: choices.threads,
        irregular: Some(patterns),
        ..annotations.into_shape(statements, choices.scope)
    };
    Ok((module, shape))
}

fn statement_shape(choices: &Choices, k: usize, role: Role) -> StmtShape {
    let (target, predicated) = match role {
        Role::Zero => (Target::Staging, false),
        Role::FirstWriter | Role::SecondWriter => (Target::Staging, choices.writer_guard.is_some()),
        Role::Barrier => (Target::Nothing, false),
        Role::Consumer => (Target::Output, choices.consumer_guard.is_some()),
    };
    StmtShape { sources: (0..k).collect(), target, predicated }
}

/// The new patterns an irregular pipeline exercises.
fn patterns(choices: &Choices, roles: &[Role], annotations: &PipelineAnnotations) -> BTreeSet<Pattern> {
    let mut found = BTreeSet::new();
    found.extend(choices.writer_guard.map(Guard::pattern));
    found.extend(choices.consumer_guard.map(Guard::pattern));
    if choices.writer_guard.is_some() && choices.consumer_guard != choices.writer_guard {
        found.insert(Pattern::ConsumerNotUnderProducerCondition);
    }
    found.insert(if choices.outside { Pattern::StagingAllocatedOutside } else { Pattern::StagingAllocatedInside });
    if choices.slots > 1 {
        found.insert(Pattern::ReadsOtherIterationSlot);
    }
    if choices.window {
        found.insert(Pattern::SlidingWindow);
    }
    let stage_of = |role: Role| roles.iter().position(|r| *r == role).and_then(|k| annotations.stages.get(k));
    if let (Some(first), Some(second)) = (stage_of(Role::FirstWriter), stage_of(Role::SecondWriter)) {
        found.insert(if first == second {
            Pattern::SeveralWritersOneStage
        } else {
            Pattern::SeveralWritersSeveralStages
        });
    }
    if choices.consumer_writes {
        found.insert(Pattern::ConsumerWritesStaging);
    }
    if choices.exchange {
        found.insert(if choices.barriers {
            Pattern::ThreadExchangeWithBarriers
        } else {
            Pattern::ThreadExchangeWithoutBarriers
        });
    }
    if choices.blocks > 1 {
        found.insert(Pattern::SeveralBlocks);
    }
    found
}

/// The variables and buffers of an irregular pipeline.
struct Layout<'c> {
    choices: &'c Choices,
    i: Var,
    tx: Var,
    bx: Var,
    n: Option<Var>,
    input: Buffer,
    output: Buffer,
    staging: Buffer,
}

impl<'c> Layout<'c> {
    fn new(choices: &'c Choices) -> Self {
        let len = choices.extent.unwrap_or(SYMBOLIC_CAPACITY) * choices.threads * choices.blocks;
        Layout {
            choices,
            i: Var::new("i", DataType::INT32),
            tx: Var::new("tx", DataType::INT32),
            bx: Var::new("bx", DataType::INT32),
            n: choices.extent.is_none().then(|| Var::new("n", DataType::INT32)),
            input: float_buffer("In0", len, "global"),
            output: float_buffer("Out", len, "global"),
            staging: float_buffer("B", choices.threads * Self::region(choices), choices.scope),
        }
    }

    /// Elements of one thread's region of `B`: a window reaches `WINDOW + 1` past the last
    /// iteration (the second writer's element and the consumer's second read).
    fn region(choices: &Choices) -> i64 {
        if choices.window {
            return choices.extent.unwrap_or(SYMBOLIC_CAPACITY) + WINDOW + 1;
        }
        choices.slots * SLOT_ELEMENTS
    }

    fn module(&self, roles: &[Role], annotations: &PipelineAnnotations) -> IRModule {
        let stmts: Vec<Stmt> = roles.iter().map(|role| self.statement(*role)).collect();
        let mut body = Stmt::seq(stmts);
        if !self.choices.outside {
            body = allocate(std::slice::from_ref(&self.staging), body);
        }
        let extent = self.n.as_ref().map_or_else(|| Expr::int(self.choices.extent.unwrap_or(1)), Expr::var);
        let mut top = serial_loop(&self.i, Expr::int(0), extent, pipeline_annotations(annotations), body);
        if self.choices.outside {
            let mut before = vec![self.zero_region()];
            if self.choices.barriers {
                before.push(barrier());
            }
            before.push(top);
            top = allocate(std::slice::from_ref(&self.staging), Stmt::seq(before));
        }
        if self.choices.threads > 1 {
            top = bound_loop(&self.tx, self.choices.threads, ThreadTag::Thread(Axis::X), top);
        }
        if self.choices.blocks > 1 {
            top = bound_loop(&self.bx, self.choices.blocks, ThreadTag::Block(Axis::X), top);
        }
        module(&[self.input.clone(), self.output.clone()], self.n.as_slice(), top)
    }

    fn statement(&self, role: Role) -> Stmt {
        match role {
            Role::Zero => self.zero_region(),
            Role::FirstWriter => self.guarded(self.choices.writer_guard, self.write(0, 0.5)),
            Role::SecondWriter => {
                let element = if self.choices.second_writer == Some(true) { 0 } else { 1 };
                self.guarded(self.choices.writer_guard, self.write(element, 1.5))
            }
            Role::Barrier => barrier(),
            Role::Consumer => self.guarded(self.choices.consumer_guard, self.consume()),
        }
    }

    /// `B[own + j] = 0` for this thread's region.
    fn zero_region(&self) -> Stmt {
        let j = Var::new("j", DataType::INT32);
        let index = self.region_base(self.thread()) + Expr::var(&j);
        let zero = store(&self.staging, index, Expr::float(0.0, DataType::FLOAT32));
        serial_loop(&j, Expr::int(0), Expr::int(Self::region(self.choices)), Annotations::new(), zero)
    }

    /// `B[this iteration's slot, element] = In0[e] * c`, or the window
    /// `for w in range(WINDOW): B[i + w + element] = In0[e] * c`.
    fn write(&self, element: i64, constant: f64) -> Stmt {
        let value = self.input_value() * Expr::float(constant, DataType::FLOAT32);
        if self.choices.window {
            let w = Var::new("w", DataType::INT32);
            let index = Expr::var(&self.i) + Expr::var(&w) + Expr::int(element);
            return serial_loop(
                &w,
                Expr::int(0),
                Expr::int(WINDOW),
                Annotations::new(),
                store(&self.staging, index, value),
            );
        }
        let slot = self.slot(0);
        let index = self.region_base(self.thread()) + slot * Expr::int(SLOT_ELEMENTS) + Expr::int(element);
        store(&self.staging, index, value)
    }

    /// `Out[e] = B[read slot, 0] (+ B[read slot, 1]) + 1`, then maybe `B[read slot, 0] = ...`.
    fn consume(&self) -> Stmt {
        let neighbour = if self.choices.exchange {
            Expr::floormod(self.thread() + Expr::int(1), Expr::int(self.choices.threads))
        } else {
            self.thread()
        };
        let first = if self.choices.window {
            Expr::var(&self.i) + Expr::int(self.choices.read_ahead)
        } else {
            self.region_base(neighbour) + self.slot(self.choices.read_ahead) * Expr::int(SLOT_ELEMENTS)
        };
        let mut value = Expr::load(&self.staging, vec![first.clone()]) + Expr::float(1.0, DataType::FLOAT32);
        if self.choices.second_writer == Some(false) {
            value = value + Expr::load(&self.staging, vec![first.clone() + Expr::int(1)]);
        }
        let out = store(&self.output, self.element(), value.clone());
        if !self.choices.consumer_writes {
            return out;
        }
        Stmt::seq(vec![out, store(&self.staging, first, value * Expr::float(0.5, DataType::FLOAT32))])
    }

    fn guarded(&self, guard: Option<Guard>, stmt: Stmt) -> Stmt {
        let Some(guard) = guard else { return stmt };
        let i = Expr::var(&self.i);
        let cond = match guard {
            Guard::Residue { modulus, residue } => {
                Expr::cmp(CmpOp::Eq, Expr::floormod(i, Expr::int(modulus)), Expr::int(residue))
            }
            Guard::BeforeLast => {
                let last = match &self.n {
                    Some(n) => Expr::var(n) - Expr::int(1),
                    None => Expr::int(self.choices.extent.unwrap_or(1) - 1),
                };
                Expr::lt(i, last)
            }
            Guard::Data => Expr::cmp(CmpOp::Gt, self.input_value(), Expr::float(0.5, DataType::FLOAT32)),
        };
        Stmt::synthetic(StmtKind::If { cond, then_case: Box::new(stmt), else_case: None })
    }

    /// The slot of the iteration `ahead` iterations later, in the ring.
    fn slot(&self, ahead: i64) -> Expr {
        if self.choices.slots > 1 {
            Expr::floormod(Expr::var(&self.i) + Expr::int(ahead), Expr::int(self.choices.slots))
        } else {
            Expr::int(0)
        }
    }

    fn region_base(&self, thread: Expr) -> Expr {
        thread * Expr::int(Self::region(self.choices))
    }

    fn thread(&self) -> Expr {
        if self.choices.threads > 1 {
            Expr::var(&self.tx)
        } else {
            Expr::int(0)
        }
    }

    /// This iteration's element of `In0` and `Out`: one per (iteration, block, thread).
    fn element(&self) -> Expr {
        let per_iteration = self.choices.threads * self.choices.blocks;
        let mut e = Expr::var(&self.i) * Expr::int(per_iteration) + self.thread();
        if self.choices.blocks > 1 {
            e = e + Expr::var(&self.bx) * Expr::int(self.choices.threads);
        }
        e
    }

    fn input_value(&self) -> Expr {
        Expr::load(&self.input, vec![self.element()])
    }
}

fn barrier() -> Stmt {
    Stmt::synthetic(StmtKind::Barrier { scope: "shared".into() })
}
