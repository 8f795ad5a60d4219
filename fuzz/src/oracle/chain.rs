//! The oracle chain: runs the pipeline pass on an input program, then the enabled oracles in
//! order, stopping at the first failure. An arbitrary async program (not a pass input) gets
//! only the oracles that apply to it: `verify` and `round-trip`; a token program gets
//! `schedules`, `verify`, `token-lowering` and `round-trip`.
//!
//! Every step runs under [`panics::catch`](super::panics::catch), so a panic in the pass, the
//! checker, the interpreter, the verifier or CSE is a `no-panic` failure naming the step. The
//! chain is deterministic: the same input and configuration give the same result.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use tirproof_ir::pipeline_annotations::is_pipelined;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{IRModule, Stmt, StmtKind};
use tirproof_passes::pipeline::{InjectSoftwarePipeline, PlantedBugPipeline};
use tirproof_passes::{Pass, PassManager, PipelineError};
use tirproof_verify::solver::{budget_spent, in_one_context};

use super::panics::catch;
use super::{
    cse, equivalence, gpu, pipeline_tokens, ptx, runs_cleanly, text, tokens, verify, waits, Failure, FailureClass,
    OracleName, Outcome, Side, SkipReason,
};
use crate::cutoff::Cutoff;
use crate::peer::{self, PeerMode};

/// Which pipeline pass the chain tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PassVariant {
    #[default]
    Real,
    /// The pass with a deliberate bug (`PlantedBugPipeline`), to test the fuzzers themselves.
    PlantedBug,
}

impl PassVariant {
    /// The pass this variant names.
    pub fn pass(self) -> Box<dyn Pass> {
        match self {
            PassVariant::Real => Box::new(InjectSoftwarePipeline),
            PassVariant::PlantedBug => Box::new(PlantedBugPipeline),
        }
    }
}

/// What the input is known to be, which decides what the pipeline pass must do with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputMode {
    /// Valid by construction: the pass must accept it.
    #[default]
    Valid,
    /// Invalid annotations by construction: the pass must refuse it, with located diagnostics.
    InvalidAnnotations,
    /// Anything (mutated text that parsed and checked): the pass may refuse it (with located
    /// diagnostics); what it accepts must pass every oracle.
    Unknown,
    /// An arbitrary async program, not an input of the pass: only the oracles of
    /// [`OracleName::FOR_ASYNC_PROGRAMS`] apply.
    AsyncProgram,
    /// A token program (`gen::token_program`), not an input of the pass: only the oracles of
    /// [`OracleName::FOR_TOKEN_PROGRAMS`] apply.
    TokenProgram,
}

#[derive(Clone, Debug)]
pub struct ChainConfig {
    pub pass: PassVariant,
    pub mode: InputMode,
    /// The oracles to run, in chain order (`no-panic` is always on).
    pub oracles: Vec<OracleName>,
    /// Time limit of each Z3 check.
    pub timeout: Duration,
    /// Seeds the random schedule, the inputs and the choice of the mutated wait.
    pub seed: u64,
    /// Time budget of a program (see [`Chain::run_until`]); `None`: none.
    pub budget: Option<Duration>,
    /// Which of TVM's passes the `tvm` oracle runs.
    pub peer: PeerMode,
}

impl Default for ChainConfig {
    fn default() -> Self {
        ChainConfig {
            pass: PassVariant::Real,
            mode: InputMode::Valid,
            oracles: OracleName::DEFAULT.to_vec(),
            timeout: Duration::from_secs(10),
            seed: 0,
            budget: None,
            peer: PeerMode::default(),
        }
    }
}

impl ChainConfig {
    /// Only `oracle` (and the pass it needs).
    pub fn only(oracle: OracleName) -> Self {
        ChainConfig { oracles: vec![oracle], ..ChainConfig::default() }
    }

    fn enabled(&self, oracle: OracleName) -> bool {
        oracle == OracleName::NoPanic || self.oracles.contains(&oracle)
    }

    /// Whether the input is taken for an arbitrary async program: so marked, or only oracles
    /// of async programs asked for, `verify` among them (`tirproof oracles FILE --oracle
    /// verify`).
    fn async_program(&self) -> bool {
        if self.token_program() {
            return false;
        }
        self.mode == InputMode::AsyncProgram
            || (self.oracles.contains(&OracleName::Verify)
                && self.oracles.iter().all(|o| OracleName::FOR_ASYNC_PROGRAMS.contains(o)))
    }
}

impl ChainConfig {
    /// Whether the input is taken for a token program: so marked, or only oracles of token
    /// programs asked for, one of those only for them among them (`tirproof oracles FILE
    /// --oracle schedules`).
    fn token_program(&self) -> bool {
        self.mode == InputMode::TokenProgram
            || (self.oracles.iter().any(|o| OracleName::ONLY_FOR_TOKEN_PROGRAMS.contains(o))
                && self.oracles.iter().all(|o| OracleName::FOR_TOKEN_PROGRAMS.contains(o)))
    }
}

/// What one run of the chain found.
#[derive(Clone, Debug, Default)]
pub struct ChainResult {
    /// Each oracle that ran, its outcome and how long it took.
    pub outcomes: Vec<(OracleName, Outcome, Duration)>,
    /// The pipeline pass's output, when it produced one.
    pub output: Option<IRModule>,
}

impl ChainResult {
    pub fn failure(&self) -> Option<&Failure> {
        self.outcomes.iter().find_map(|(_, o, _)| o.failure())
    }

    /// Whether the time budget ran out: some oracles were stopped or not run (and say so as
    /// skips).
    pub fn stopped(&self) -> bool {
        self.outcomes.iter().any(|(_, o, _)| matches!(o, Outcome::Skip(SkipReason::BudgetSpent { .. })))
    }
}

pub struct Chain<'a> {
    pub config: &'a ChainConfig,
}

impl Chain<'_> {
    /// Runs the pass and the enabled oracles on `input`, with one Z3 context for all of their
    /// verifications and validations, within the configured budget.
    pub fn run(&self, input: &IRModule) -> ChainResult {
        self.run_cut(input, &Cutoff::default())
    }

    /// [`Chain::run`], with every Z3 check stopped at `deadline`: once it has passed, the
    /// oracles still to run are skipped, and an oracle whose checks it stopped is a skip, not
    /// a failure (an undecided check is a failure only when nothing cut it short).
    pub fn run_until(&self, input: &IRModule, deadline: Option<Instant>) -> ChainResult {
        self.run_cut(input, &Cutoff { deadline, stop: None })
    }

    /// [`Chain::run_until`] at the earlier of `cutoff` and the configured budget, with every
    /// Z3 check stopped once the cutoff's flag is set too.
    pub fn run_cut(&self, input: &IRModule, cutoff: &Cutoff) -> ChainResult {
        let cutoff = match self.config.budget {
            Some(budget) => cutoff.until(Instant::now() + budget),
            None => cutoff.clone(),
        };
        in_one_context(|| cutoff.guard(|| self.run_oracles(input))).unwrap_or_else(|no_context| {
            let skip = || Outcome::Skip(SkipReason::Unavailable(no_context.to_string()));
            ChainResult {
                outcomes: self.config.oracles.iter().map(|&oracle| (oracle, skip(), Duration::ZERO)).collect(),
                output: None,
            }
        })
    }

    fn run_oracles(&self, input: &IRModule) -> ChainResult {
        let mut result = ChainResult::default();
        if self.config.token_program() {
            let (timeout, seed) = (self.config.timeout, self.config.seed);
            let steps: [Step<'_>; 4] = [
                (OracleName::Schedules, &|| tokens::schedules(input, seed)),
                (OracleName::Verify, &|| verify::check(input, timeout)),
                (OracleName::TokenLowering, &|| tokens::token_lowering(input, seed)),
                (OracleName::RoundTrip, &|| text::check(input, "input")),
            ];
            self.run_steps(&mut result, &steps, &|| false);
            return result;
        }
        if self.config.async_program() {
            let timeout = self.config.timeout;
            let steps: [Step<'_>; 2] = [
                (OracleName::Verify, &|| verify::check(input, timeout)),
                (OracleName::RoundTrip, &|| text::check(input, "input")),
            ];
            self.run_steps(&mut result, &steps, &|| false);
            return result;
        }
        let (mode, seed, timeout, peer) = (self.config.mode, self.config.seed, self.config.timeout, self.config.peer);
        let known = waits::Known { predicated: has_conditions(input), nested: has_nested_pipelines(input) };
        let output = self.step(&mut result, OracleName::Pipeline, || pipeline(self.config.pass, mode, input));
        let Some(output) = output else {
            // A refusal the mode allows ends tirproof's chain, but TVM is judged all the same.
            if result.failure().is_none() && mode == InputMode::Unknown {
                let judge_tvm = || {
                    if runs_cleanly(input) {
                        peer::check(input, None, peer, seed, timeout, known)
                    } else {
                        Outcome::not_applicable("the input does not run cleanly on its own")
                    }
                };
                let steps: [Step<'_>; 1] = [(OracleName::Tvm, &judge_tvm)];
                self.run_steps(&mut result, &steps, &|| false);
            }
            return result;
        };
        result.output = Some(output.clone());
        // An input that is not valid by construction and faults on its own (out of bounds,
        // say) is outside the pass's contract: nothing after the pass applies to it.
        if mode == InputMode::Unknown && !runs_cleanly(input) {
            let skip = Outcome::not_applicable("the input does not run cleanly on its own");
            result.outcomes.push((OracleName::Equivalence, skip, Duration::ZERO));
            return result;
        }
        // What `waits-tight` measured, reused by `agreement`.
        let measured = RefCell::new(None);
        // Likewise for one that faults under some run of the plan (other inputs or schedules):
        // the oracles after it are not run.
        let faults_alone = Cell::new(false);
        let steps: [Step<'_>; 9] = [
            // First, so that a finding of tirproof's own oracles does not hide TVM's verdict.
            (OracleName::Tvm, &|| peer::check(input, Some(&output), peer, seed, timeout, known)),
            (OracleName::Equivalence, &|| {
                let outcome = equivalence::check(OracleName::Equivalence, input, &output, seed);
                faults_alone.set(mode == InputMode::Unknown && is_the_originals(&outcome));
                if faults_alone.get() {
                    return Outcome::not_applicable("the input faults on its own");
                }
                outcome
            }),
            (OracleName::PipelineTokens, &|| pipeline_tokens::check(input, &output)),
            (OracleName::Ptx, &|| ptx::check(input, seed)),
            (OracleName::Gpu, &|| gpu::check(input, seed)),
            (OracleName::WaitsTight, &|| {
                let (outcome, reports) = waits::tight(&output, known, timeout);
                *measured.borrow_mut() = Some(reports);
                outcome
            }),
            (OracleName::Agreement, &|| waits::agreement(&output, seed, timeout, measured.borrow().as_deref())),
            (OracleName::Cse, &|| cse::check(&output, seed, timeout)),
            (OracleName::RoundTrip, &|| round_trip(input, &output)),
        ];
        self.run_steps(&mut result, &steps, &|| faults_alone.get());
        result
    }

    /// Runs the enabled `steps` in order until one fails or `halt` says so after a step;
    /// once the budget is spent, the rest are skips.
    fn run_steps(&self, result: &mut ChainResult, steps: &[Step<'_>], halt: &dyn Fn() -> bool) {
        for &(oracle, check) in steps {
            if !self.config.enabled(oracle) {
                continue;
            }
            if budget_spent() {
                let skip = Outcome::Skip(SkipReason::BudgetSpent { stopped: None });
                result.outcomes.push((oracle, skip, Duration::ZERO));
                continue;
            }
            let passed = self.step(result, oracle, || (stopped_is_skip(oracle, check()), Some(())));
            if passed.is_none() || halt() {
                break;
            }
        }
    }

    /// Runs one step, records its outcome; `Some` when the chain may go on.
    fn step<T>(
        &self,
        result: &mut ChainResult,
        oracle: OracleName,
        f: impl FnOnce() -> (Outcome, Option<T>),
    ) -> Option<T> {
        let start = Instant::now();
        let (outcome, value) = match catch(f) {
            Ok(pair) => pair,
            Err(panic) => {
                let class = FailureClass::Panic { during: oracle, location: panic.location.clone() };
                let message = format!("panic while checking {oracle} at {}: {}", panic.location, panic.message);
                (Outcome::Fail(Failure::new(OracleName::NoPanic, class, message)), None)
            }
        };
        let go_on = !matches!(outcome, Outcome::Fail(_));
        if self.config.enabled(oracle) || !go_on {
            result.outcomes.push((oracle, outcome, start.elapsed()));
        }
        value.filter(|_| go_on)
    }
}

/// An oracle and its check, as the chain runs them.
type Step<'a> = (OracleName, &'a dyn Fn() -> Outcome);

/// The pass's output, or why there is none (a refusal the mode allows is a pass of this
/// oracle that ends the chain).
fn pipeline(variant: PassVariant, mode: InputMode, input: &IRModule) -> (Outcome, Option<IRModule>) {
    let mut output = input.clone();
    let ran = PassManager::new(vec![variant.pass()]).run(&mut output);
    let fail = |class, message: String| (Outcome::Fail(Failure::new(OracleName::Pipeline, class, message)), None);
    match (ran, mode) {
        (Err(PipelineError::Refused { error, .. }), InputMode::Valid) => {
            fail(FailureClass::PassRejected, format!("the pipeline pass rejects a valid program: {error}"))
        }
        (Err(PipelineError::Refused { error, .. }), _) if error.diagnostics.iter().any(|d| !d.span.is_known()) => {
            fail(FailureClass::UnlocatedDiagnostic, format!("a diagnostic without a location: {error}"))
        }
        (Err(PipelineError::Refused { .. }), _) => (Outcome::Pass, None),
        (_, InputMode::InvalidAnnotations) => fail(
            FailureClass::PassAcceptedInvalid,
            "the pipeline pass accepts a program with invalid annotations".into(),
        ),
        (Err(PipelineError::Broken { diagnostics, .. }), _) => {
            fail(FailureClass::CheckerRejected, format!("the checker rejects the pass's output: {diagnostics}"))
        }
        (Ok(_), _) => (Outcome::Pass, Some(output)),
    }
}

/// Whether `outcome` is a fault or an interpreter error of the original program.
fn is_the_originals(outcome: &Outcome) -> bool {
    matches!(
        outcome.failure().map(|f| &f.class),
        Some(
            FailureClass::Fault { side: Side::Original, .. } | FailureClass::InterpreterError { side: Side::Original }
        )
    )
}

/// A failure that only says checks were not decided, when the time budget stopped them, is
/// a skip; so is any failure of an oracle that asks Z3 when the budget ran out while it ran.
///
/// Why the second: a check the budget stops leaves the solver of its session interrupted,
/// and the verifier goes on with the next obligations (collecting the undecided one), so an
/// answer given after the budget ran out is not one a standalone run reproduces. A failure is
/// recorded only when nothing cut its oracle short; the program is run again when the end of
/// the campaign cut it (see the campaign).
fn stopped_is_skip(oracle: OracleName, outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Fail(f)
            if matches!(f.class, FailureClass::VerifierUnknown | FailureClass::CseUnvalidated)
                && stopped_by_budget(&f) =>
        {
            Outcome::Skip(SkipReason::BudgetSpent { stopped: Some(f.message) })
        }
        Outcome::Fail(f) if oracle.asks_z3() && budget_spent() => {
            Outcome::Skip(SkipReason::BudgetSpent { stopped: Some(format!("cut short, not definite: {}", f.message)) })
        }
        other => other,
    }
}

/// Whether the verifier says that the time budget, not the check itself, left the checks of
/// `failure` undecided: the one place that reads the verifier's reason text.
fn stopped_by_budget(failure: &Failure) -> bool {
    budget_spent() && failure.is_budget_spent()
}

fn round_trip(input: &IRModule, output: &IRModule) -> Outcome {
    match text::check(input, "input") {
        Outcome::Pass => text::check(output, "output"),
        other => other,
    }
}

/// Whether a pipelined loop of `module` holds another one.
fn has_nested_pipelines(module: &IRModule) -> bool {
    struct Find {
        depth: usize,
        nested: bool,
    }
    impl Visitor for Find {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            let pipelined = matches!(&stmt.kind, StmtKind::For(f) if is_pipelined(&f.annotations));
            self.nested |= pipelined && self.depth > 0;
            self.depth += usize::from(pipelined);
            walk_stmt(self, stmt);
            self.depth -= usize::from(pipelined);
        }
    }
    let mut find = Find { depth: 0, nested: false };
    for func in &module.functions {
        find.visit_stmt(&func.body);
    }
    find.nested
}

/// Whether any statement of `module` runs under a condition.
fn has_conditions(module: &IRModule) -> bool {
    struct Find(bool);
    impl Visitor for Find {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            self.0 |= matches!(stmt.kind, StmtKind::If { .. });
            walk_stmt(self, stmt);
        }
    }
    let mut find = Find(false);
    for func in &module.functions {
        find.visit_stmt(&func.body);
    }
    find.0
}
