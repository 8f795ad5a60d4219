//! Witnesses on memory contents: inputs under which the lazy interpreter shows a race or a
//! fault of the async protocol that the verifier left undecided.
//!
//! The verifier reads every value loaded from memory as a fresh unknown. A counterexample that
//! needs particular contents (a condition on data taken in some iterations and not in others,
//! a trip count read from memory, two threads reading one element) is then one the solver may
//! not be able to confirm, and the verifier says unknown. This module looks for such contents
//! by running the program: seeded draws of the input buffers (each buffer either filled with
//! one value or drawn element by element, from small integers, multiples of 0.25 and the
//! float constants of the program with their neighbours), over the scalar values of the
//! counterexample, of the fuzzers' fast plan and of their late probe (every integer parameter at
//! 100), each under the lazy schedule (copies complete
//! as late as the program allows) in the seeded thread orders 0 and 1 (those of
//! `tirproof run --seed`). The first run that faults with a
//! race or an async-protocol fault ([`is_race_or_async_fault`]) is the witness; it is then
//! shrunk, one run per step, to a base value per buffer and the fewest elements that differ
//! from it, so that it prints as a few elements.
//!
//! Invariants: a witness is a run that faulted, kept with the exact inputs of that run, never
//! a guess; finding none decides nothing (the verifier's unknown stays). The search is
//! deterministic up to its time limit: the same function and run limit give the same witness
//! unless the clock stops the search first.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_interp::{random_inputs, run, Fault, Inputs, RunConfig, ScalarValue, Tensor};
use tirproof_ir::visit::{walk_expr, walk_func, walk_stmt, Visitor};
use tirproof_ir::{DataType, Expr, PrimFunc, Stmt};
use tirproof_verify::solver::Assignment;
use tirproof_verify::waits::{verify_func as verify_symbolically, ContentsWitness, Dump, Finding, FuncReport, Options};

use crate::oracle::equivalence::scalar_assignments;
use crate::oracle::verify::{is_race_or_async_fault, late_assignments};
use crate::oracle::waits::replay_assignment;

/// How much running a search may do.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Interpreter runs, the search and the shrinking each.
    pub runs: usize,
    /// Wall-clock time of the search and the shrinking together, checked between runs.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { runs: 400, time: Duration::from_secs(1) }
    }
}

/// The statements one run of the search may execute: a witness is a short run, and a draw
/// that loops for long (a trip count read from memory) is not one worth waiting for.
const FUEL: u64 = 2_000_000;

/// The contents of one input buffer: `base` everywhere except at `exceptions` (flat indices
/// into the buffer's elements, ascending).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferFill {
    pub buffer: String,
    pub dtype: DataType,
    pub shape: Vec<usize>,
    pub base: ScalarValue,
    pub exceptions: Vec<(usize, ScalarValue)>,
}

impl BufferFill {
    /// The fill of `elements` with their most frequent value as the base (the first of equals;
    /// zero for no elements).
    fn of(buffer: &str, dtype: DataType, shape: &[usize], elements: &[ScalarValue]) -> Self {
        let mut counts: Vec<(ScalarValue, usize)> = Vec::new();
        for value in elements {
            match counts.iter_mut().find(|(v, _)| v == value) {
                Some((_, n)) => *n += 1,
                None => counts.push((*value, 1)),
            }
        }
        let most = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
        let base = counts.iter().find(|(_, n)| *n == most).map_or_else(|| zero(dtype), |(v, _)| *v);
        let exceptions = elements.iter().enumerate().filter(|(_, v)| **v != base).map(|(i, v)| (i, *v)).collect();
        BufferFill { buffer: buffer.to_string(), dtype, shape: shape.to_vec(), base, exceptions }
    }

    /// The buffer's elements, in order.
    fn elements(&self) -> Vec<ScalarValue> {
        let mut elements = vec![self.base; self.shape.iter().product()];
        for (flat, value) in &self.exceptions {
            if let Some(slot) = elements.get_mut(*flat) {
                *slot = *value;
            }
        }
        elements
    }

    /// The tensor of these contents.
    fn tensor(&self) -> Option<Tensor> {
        let elements = self.elements();
        let tensor = if self.dtype.is_float() {
            let values: Vec<f64> = elements.iter().map(|v| number(*v)).collect();
            Tensor::from_f64(self.dtype, self.shape.clone(), &values)
        } else {
            let values: Vec<i64> = elements.iter().map(|v| integer(*v)).collect();
            Tensor::from_i64(self.dtype, self.shape.clone(), &values)
        };
        tensor.ok()
    }
}

/// Zero of `dtype`'s kind.
fn zero(dtype: DataType) -> ScalarValue {
    if dtype.is_float() {
        ScalarValue::Float(0.0)
    } else {
        ScalarValue::Int(0)
    }
}

fn number(value: ScalarValue) -> f64 {
    match value {
        ScalarValue::Float(x) => x,
        #[expect(clippy::cast_precision_loss, reason = "drawn integers are small")]
        ScalarValue::Int(n) => n as f64,
        ScalarValue::Bool(b) => f64::from(u8::from(b)),
    }
}

fn integer(value: ScalarValue) -> i64 {
    match value {
        #[expect(clippy::cast_possible_truncation, reason = "drawn floats are small multiples of 0.25")]
        ScalarValue::Float(x) => x as i64,
        ScalarValue::Int(n) => n,
        ScalarValue::Bool(b) => i64::from(b),
    }
}

/// `[3]`, `[1, 2]`: a flat index as the buffer's indices (a vector buffer's last index is
/// the lane).
fn index_text(shape: &[usize], flat: usize) -> String {
    let mut rest = flat;
    let mut indices = vec![0; shape.len()];
    for (slot, extent) in indices.iter_mut().zip(shape).rev() {
        let extent = (*extent).max(1);
        *slot = rest % extent;
        rest /= extent;
    }
    let text: Vec<String> = indices.iter().map(ToString::to_string).collect();
    format!("[{}]", text.join(", "))
}

impl fmt::Display for BufferFill {
    /// `K = 0 everywhere`, `A = 0.5 everywhere except A[21] = 1.0, A[23] = 1.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {} everywhere", self.buffer, self.base)?;
        for (n, (flat, value)) in self.exceptions.iter().enumerate() {
            f.write_str(if n == 0 { " except " } else { ", " })?;
            write!(f, "{}{} = {value}", self.buffer, index_text(&self.shape, *flat))?;
        }
        Ok(())
    }
}

/// A run that faults: its scalar values, the contents of its input buffers, its thread order
/// and its fault.
#[derive(Clone, Debug)]
pub struct Witness {
    pub scalars: BTreeMap<String, ScalarValue>,
    pub fills: Vec<BufferFill>,
    pub thread_order_seed: Option<u64>,
    pub fault: Fault,
}

impl Witness {
    /// The exact inputs of the run (tensors of the buffers' shapes, and the scalars).
    #[must_use]
    pub fn inputs(&self) -> Inputs {
        inputs_of(&self.fills, &self.scalars)
    }

    /// The run's configuration: the lazy schedule, the thread order of the witness.
    #[must_use]
    pub fn config(&self) -> RunConfig {
        config(self.thread_order_seed)
    }
}

fn inputs_of(fills: &[BufferFill], scalars: &BTreeMap<String, ScalarValue>) -> Inputs {
    let buffers = fills.iter().filter_map(|fill| Some((fill.buffer.clone(), fill.tensor()?)));
    Inputs { buffers: buffers.collect(), scalars: scalars.clone() }
}

fn config(thread_order_seed: Option<u64>) -> RunConfig {
    RunConfig { thread_order_seed, fuel: FUEL, ..RunConfig::default() }
}

/// The interpreter runs a search may still make.
struct Budget {
    runs: usize,
    deadline: Instant,
}

impl Budget {
    fn new(limits: Limits, start: Instant) -> Self {
        Budget { runs: limits.runs, deadline: start + limits.time }
    }

    /// The race or async fault of one run, if any; `Err` once the budget is spent.
    fn fault(&mut self, func: &PrimFunc, inputs: &Inputs, order: Option<u64>) -> Result<Option<Fault>, Spent> {
        if self.runs == 0 || Instant::now() >= self.deadline {
            return Err(Spent);
        }
        self.runs -= 1;
        let Ok(result) = run(func, inputs, &config(order)) else { return Ok(None) };
        Ok(result.outcome.fault().filter(|f| is_race_or_async_fault(f.kind)).cloned())
    }
}

/// The budget ran out.
struct Spent;

/// The float and integer constants of a function: the values its conditions compare loaded
/// values against (integers of magnitude at most 64).
#[derive(Default)]
struct Constants {
    floats: Vec<f64>,
    ints: Vec<i64>,
}

impl Constants {
    fn of(func: &PrimFunc) -> Self {
        let mut constants = Constants::default();
        walk_func(&mut constants, func);
        constants
    }
}

/// Collects the constants of what it visits.
impl Visitor for Constants {
    fn visit_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Float { value, .. } if value.is_finite() && !self.floats.contains(value) => {
                self.floats.push(*value);
            }
            Expr::Int { value, .. } if value.abs() <= 64 && !self.ints.contains(value) => self.ints.push(*value),
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// One drawn value of type `dtype`: small integers (mostly not negative, since values read
/// from memory often index or count), multiples of 0.25 in [-4, 4], and the program's
/// constants and their neighbours.
fn draw(dtype: DataType, constants: &Constants, rng: &mut ChaCha8Rng) -> ScalarValue {
    if dtype.is_bool() {
        return ScalarValue::Bool(rng.gen_bool(0.5));
    }
    let near_constant = rng.gen_bool(0.25);
    if dtype.is_float() {
        if near_constant && !constants.floats.is_empty() {
            let c = constants.floats[rng.gen_range(0..constants.floats.len())];
            return ScalarValue::Float(c + [-0.25, 0.0, 0.25][rng.gen_range(0..3)]);
        }
        return ScalarValue::Float(f64::from(rng.gen_range(-16i32..=16)) * 0.25);
    }
    let unsigned = dtype.is_uint();
    if near_constant && !constants.ints.is_empty() {
        let c = constants.ints[rng.gen_range(0..constants.ints.len())] + rng.gen_range(-1..=1);
        if !unsigned || c >= 0 {
            return ScalarValue::Int(c);
        }
    }
    if unsigned || rng.gen_bool(0.75) {
        ScalarValue::Int(rng.gen_range(0..=8))
    } else {
        ScalarValue::Int(rng.gen_range(-8..=-1))
    }
}

/// Contents for every buffer of `template` (its shapes and types): each buffer, with even
/// odds, one drawn value everywhere or a value drawn per element.
fn draw_fills(template: &Inputs, constants: &Constants, seed: u64) -> Vec<BufferFill> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    template
        .buffers
        .iter()
        .map(|(name, tensor)| {
            let len = tensor.len();
            let elements: Vec<ScalarValue> = if rng.gen_bool(0.5) {
                vec![draw(tensor.dtype, constants, &mut rng); len]
            } else {
                (0..len).map(|_| draw(tensor.dtype, constants, &mut rng)).collect()
            };
            BufferFill::of(name, tensor.dtype, &tensor.shape, &elements)
        })
        .collect()
}

/// Memory contents and scalar values under which `func` faults with a race or an async fault
/// under the lazy schedule, shrunk; the counterexample's scalar values are tried first. Draws
/// go on until the limits are spent.
#[must_use]
pub fn search(func: &PrimFunc, counterexample: Option<&Assignment>, limits: Limits) -> Option<Witness> {
    let start = Instant::now();
    let mut budget = Budget::new(limits, start);
    let mut assignments: Vec<BTreeMap<String, ScalarValue>> = Vec::new();
    let replayed = counterexample.and_then(|values| replay_assignment(func, values));
    // The fast plan's values, then the late probe's (a fault from iteration 64 on).
    for scalars in replayed.into_iter().chain(scalar_assignments(func)).chain(late_assignments(func)) {
        if !assignments.contains(&scalars) {
            assignments.push(scalars);
        }
    }
    // Shapes and types come from seeded random inputs; a program whose inputs cannot be made
    // for some scalar values is not run with them.
    let templates: Vec<Inputs> =
        assignments.iter().filter_map(|scalars| random_inputs(func, 0, scalars).ok()).collect();
    let constants = Constants::of(func);
    // The order of a block's threads matters only where there are threads; seeded orders, the
    // ones `tirproof run --seed` replays.
    let orders: &[Option<u64>] = if binds_threads(func) { &[Some(0), Some(1)] } else { &[Some(0)] };
    for draw_index in 0u64.. {
        for (index, template) in templates.iter().enumerate() {
            let fills = draw_fills(template, &constants, draw_index * 1024 + index as u64);
            let inputs = inputs_of(&fills, &template.scalars);
            for &order in orders {
                match budget.fault(func, &inputs, order) {
                    Err(Spent) => return None,
                    Ok(None) => {}
                    Ok(Some(fault)) => {
                        let found =
                            Witness { scalars: template.scalars.clone(), fills, thread_order_seed: order, fault };
                        return Some(shrink(func, found, Budget::new(limits, Instant::now())));
                    }
                }
            }
        }
        if templates.is_empty() {
            break;
        }
    }
    None
}

/// Whether `func` has a thread binding (of threads or blocks).
fn binds_threads(func: &PrimFunc) -> bool {
    struct Find(bool);
    impl Visitor for Find {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            self.0 |= stmt.launch().is_some();
            if !self.0 {
                walk_stmt(self, stmt);
            }
        }
    }
    let mut find = Find(false);
    walk_func(&mut find, func);
    find.0
}

/// `witness` with the fewest exceptions to each buffer's base that still fault (exceptions are
/// reset to the base in halves, then quarters, down to one at a time, keeping each reset
/// under which a run still faults), then with the base made zero where a run still faults
/// (and its exceptions shrunk again).
fn shrink(func: &PrimFunc, mut witness: Witness, budget: Budget) -> Witness {
    let mut shrinking = Shrinking { func, budget };
    for b in 0..witness.fills.len() {
        if shrinking.exceptions(&mut witness, b).is_err() {
            break;
        }
        let fill = &witness.fills[b];
        let zero = zero(fill.dtype);
        if fill.base == zero || fill.dtype.is_bool() {
            continue;
        }
        let mut fills = witness.fills.clone();
        fills[b].base = zero;
        fills[b].exceptions.retain(|(_, v)| *v != zero);
        match shrinking.attempt(&mut witness, fills) {
            Err(Spent) => break,
            Ok(false) => {}
            Ok(true) => {
                if shrinking.exceptions(&mut witness, b).is_err() {
                    break;
                }
            }
        }
    }
    witness
}

/// The runs of a shrinking.
struct Shrinking<'f> {
    func: &'f PrimFunc,
    budget: Budget,
}

impl Shrinking<'_> {
    /// Whether a run with `fills` faults; if so, they and the fault become the witness's.
    fn attempt(&mut self, witness: &mut Witness, fills: Vec<BufferFill>) -> Result<bool, Spent> {
        let inputs = inputs_of(&fills, &witness.scalars);
        let Some(fault) = self.budget.fault(self.func, &inputs, witness.thread_order_seed)? else { return Ok(false) };
        witness.fills = fills;
        witness.fault = fault;
        Ok(true)
    }

    /// The exceptions of buffer `b` reset to its base, in halves down to one at a time.
    fn exceptions(&mut self, witness: &mut Witness, b: usize) -> Result<(), Spent> {
        let mut chunk = witness.fills[b].exceptions.len().div_ceil(2);
        while chunk > 0 {
            let mut at = 0;
            while at < witness.fills[b].exceptions.len() {
                let mut fills = witness.fills.clone();
                let end = (at + chunk).min(fills[b].exceptions.len());
                fills[b].exceptions.drain(at..end);
                if !self.attempt(witness, fills)? {
                    at += chunk;
                }
            }
            chunk /= 2;
        }
        Ok(())
    }
}

/// Whether `report` leaves something undecided and refutes nothing: what a witness can decide.
fn undecided(report: &FuncReport) -> bool {
    let refuted = !report.findings.is_empty() || report.waits.iter().any(|w| w.verdict.is_refuted());
    let open =
        !report.unknown.is_empty() || report.waits.iter().any(|w| !w.verdict.is_proved() && !w.verdict.is_refuted());
    open && !refuted
}

/// What a witness shows, as a finding of the report: the fault, refuted for some memory
/// contents, with the run that shows it.
fn finding(witness: &Witness) -> Finding {
    let values: Assignment = witness
        .scalars
        .iter()
        .filter_map(|(name, value)| match value {
            ScalarValue::Int(n) => Some((name.clone(), *n)),
            _ => None,
        })
        .collect();
    let fault = &witness.fault;
    Finding {
        line: fault.span.line,
        message: format!("refuted for some memory contents: {}", fault_text(fault)),
        values,
        witness: Some(ContentsWitness {
            scalars: witness.scalars.iter().map(|(name, value)| format!("{name} = {value}")).collect(),
            contents: witness.fills.iter().map(ToString::to_string).collect(),
            thread_order_seed: witness.thread_order_seed,
            fault: fault.to_string(),
        }),
    }
}

/// The fault's summary without its leading `line N: ` (a finding carries its line).
fn fault_text(fault: &Fault) -> String {
    let text = fault.to_string();
    let prefix = format!("line {}: ", fault.span.line);
    text.strip_prefix(&prefix).map_or(text.clone(), str::to_string)
}

/// Verifies `func` and, where the verifier refutes nothing and leaves something undecided,
/// looks for memory contents under which it faults: a witness found is added to the report as
/// a finding (a refutation for some memory contents) and returned, and the undecided
/// obligations stay listed.
#[must_use]
pub fn verify_func(func: &PrimFunc, options: &Options, limits: Limits) -> (FuncReport, Vec<Dump>, Option<Witness>) {
    let (mut report, dumps) = verify_symbolically(func, options);
    let witness = if undecided(&report) { search(func, None, limits) } else { None };
    if let Some(witness) = &witness {
        report.findings.push(finding(witness));
    }
    (report, dumps, witness)
}
