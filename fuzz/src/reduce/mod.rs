//! The minimizer: shrinks a failing program while its failure signature holds, at the same
//! statement.
//!
//! It first runs the oracle chain on the input and fails with [`ReduceError::DoesNotFail`]
//! unless the input fails (with the given signature, when one is given). Then it applies the
//! edits of [`edits`] greedily, most aggressive first, keeping a candidate only when it is
//! smaller by [`Size`], the checker accepts it, it runs without a fault on its own (when the
//! input did), and the chain fails on it with the same [`Signature`] at the same [`Site`]
//! (the wait or faulting statement the failure is at: edits keep the spans of the statements
//! they leave, so a failure at another line moved to another statement, and is not the one
//! given). It stops at a fixed point
//! (no edit applies), at the time budget, or at the caller's [`Cutoff`] (a campaign's end or
//! Ctrl-C), and says which ([`Minimization`]). Only the oracle of the signature runs on
//! candidates, which keeps each attempt cheap. Deterministic: the same input, configuration
//! and budget (when it is not reached) give the same result.
//!
//! The result is read back from its printed text and checked once more, so that every line its
//! failure names is a line of that text ([`LineRefs`]).

mod edits;
mod pipeline_edits;
mod size;

use std::time::{Duration, Instant};

use tirproof_ir::check::check_module;
use tirproof_ir::IRModule;

use serde::{Deserialize, Serialize};
use tirproof_ir::print::print_module;

use crate::cutoff::Cutoff;
use crate::oracle::{
    parse_text, runs_cleanly, Chain, ChainConfig, ChainResult, Failure, InputMode, OracleName, Signature, Site,
};
use crate::peer::PeerMode;

pub use edits::{Edit, EDITS};
pub use size::Size;

/// Why the minimizer could not start.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ReduceError {
    #[error("the program is not valid: {0}")]
    Invalid(String),
    #[error("the program does not fail{}", .0.as_ref().map(|s| format!(" with signature {s}")).unwrap_or_default())]
    DoesNotFail(Option<Signature>),
    #[error("the program fails with signature {found}, not {wanted}")]
    OtherFailure { wanted: Signature, found: Signature },
    #[error("stopped before the program's first run was checked")]
    Cut,
    #[error("the program fails {found} first, before oracle {wanted} runs")]
    OtherOracle { wanted: OracleName, found: Signature },
}

/// How far the minimization of a failure got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Minimization {
    /// Not begun: the program is the one that failed.
    NotStarted,
    /// Begun and stopped from outside (a campaign's end, Ctrl-C, a kill) before its end.
    InProgress,
    /// A fixed point: no edit applies.
    Done,
    /// Its own time budget ran out before a fixed point.
    BudgetSpent,
}

impl Minimization {
    /// Whether this minimization is over (a campaign does not run it again).
    #[must_use]
    pub fn is_final(self) -> bool {
        matches!(self, Minimization::Done | Minimization::BudgetSpent)
    }
}

impl std::fmt::Display for Minimization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Minimization::NotStarted => "not started",
            Minimization::InProgress => "in progress",
            Minimization::Done => "done",
            Minimization::BudgetSpent => "budget spent",
        })
    }
}

/// Which program the lines in a reduction's failure refer to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRefs {
    /// The printed reduced program (its text was read back and failed again the same way).
    Minimized,
    /// The program as it was before the edits (reading the reduced text back did not fail the
    /// same way in time).
    Original,
}

/// A minimized program and how it was reached.
#[derive(Clone, Debug)]
pub struct Reduction {
    pub original: IRModule,
    pub reduced: IRModule,
    /// The failure of the reduced program (the same signature as the original's).
    pub failure: Failure,
    /// The chain's result on the reduced program (with the pass's output).
    pub result: ChainResult,
    pub original_size: Size,
    pub reduced_size: Size,
    /// Edits kept, by name, in order.
    pub steps: Vec<&'static str>,
    /// Candidates tried.
    pub attempts: usize,
    pub elapsed: Duration,
    /// Whether the time budget stopped the search before a fixed point.
    pub budget_reached: bool,
    /// How far the minimization got.
    pub minimization: Minimization,
    /// Which program the failure's lines refer to.
    pub lines: LineRefs,
    /// The chain's seed (which schedule, inputs and mutated wait the failure needs).
    pub seed: u64,
    /// Which of TVM's passes the `tvm` oracle ran.
    pub peer: PeerMode,
    /// What the input was known to be (a program the pass may refuse is reproduced so).
    pub mode: InputMode,
}

/// What to reduce for.
#[derive(Clone, Debug)]
pub struct ReduceConfig {
    /// The chain that shows the failure (its pass variant, timeouts and seed are kept).
    pub chain: ChainConfig,
    /// Keep this oracle's failure; `None`: whatever the chain's first failure is.
    pub oracle: Option<OracleName>,
    /// Stop searching after this long (the result is still a failing program).
    pub budget: Duration,
}

impl Reduction {
    /// The failing `input` itself, before any minimization: `result` is the chain's result on
    /// it (with a failure), `seed` the chain's seed.
    #[must_use]
    pub fn unreduced(input: &IRModule, result: &ChainResult, failure: &Failure, seed: u64) -> Reduction {
        let size = Size::of(input);
        Reduction {
            original: input.clone(),
            reduced: input.clone(),
            failure: failure.clone(),
            result: result.clone(),
            original_size: size,
            reduced_size: size,
            steps: Vec::new(),
            attempts: 0,
            elapsed: Duration::ZERO,
            budget_reached: false,
            minimization: Minimization::NotStarted,
            lines: LineRefs::Minimized,
            seed,
            peer: PeerMode::default(),
            mode: InputMode::default(),
        }
    }
}

/// Minimizes `input` (see the module documentation).
pub fn reduce(input: &IRModule, config: &ReduceConfig) -> Result<Reduction, ReduceError> {
    reduce_until(input, config, &Cutoff::default())
}

/// [`reduce`], stopped at `cutoff` too (the result is then [`Minimization::InProgress`]).
pub fn reduce_until(input: &IRModule, config: &ReduceConfig, cutoff: &Cutoff) -> Result<Reduction, ReduceError> {
    let start = Instant::now();
    let diags = check_module(input);
    if diags.has_errors() {
        return Err(ReduceError::Invalid(diags.to_string()));
    }
    let mut chain = config.chain.clone();
    if let Some(oracle) = config.oracle {
        chain.oracles = vec![oracle];
    }
    let first = Chain { config: &chain }.run_cut(input, cutoff);
    let Some(failure) = first.failure().cloned() else {
        return Err(if first.stopped() { ReduceError::Cut } else { ReduceError::DoesNotFail(None) });
    };
    let signature = failure.signature();
    if let Some(wanted) = config.oracle.filter(|o| *o != failure.oracle && failure.oracle != OracleName::NoPanic) {
        return Err(ReduceError::OtherOracle { wanted, found: signature });
    }
    chain.oracles = vec![failure.oracle];
    let input_runs_cleanly = runs_cleanly(input);
    let mut search = Search {
        chain,
        signature,
        site: failure.site(),
        current: input.clone(),
        result: first,
        steps: Vec::new(),
        attempts: 0,
        input_runs_cleanly,
        cutoff: cutoff.clone(),
    };
    let minimization = search.run(start + config.budget);
    let lines = search.relocate();
    let reduced_size = Size::of(&search.current);
    let failure = search.result.failure().cloned().unwrap_or(failure);
    Ok(Reduction {
        original: input.clone(),
        original_size: Size::of(input),
        reduced: search.current,
        reduced_size,
        failure,
        result: search.result,
        steps: search.steps,
        attempts: search.attempts,
        elapsed: start.elapsed(),
        budget_reached: minimization == Minimization::BudgetSpent,
        minimization,
        lines,
        seed: config.chain.seed,
        peer: config.chain.peer,
        mode: config.chain.mode,
    })
}

struct Search {
    chain: ChainConfig,
    signature: Signature,
    /// Where the failure is, in the lines of the spans of `current`.
    site: Option<Site>,
    current: IRModule,
    result: ChainResult,
    steps: Vec<&'static str>,
    attempts: usize,
    /// The original input runs without a fault: so must every kept candidate (a candidate that
    /// faults on its own would drift into failing for a reason that is not the bug).
    input_runs_cleanly: bool,
    /// Where the caller stops the search (the result is then still a failing program).
    cutoff: Cutoff,
}

impl Search {
    /// Greedy passes over all edits until none applies, the budget (`deadline`) is spent or
    /// the cutoff is reached.
    fn run(&mut self, deadline: Instant) -> Minimization {
        loop {
            let mut improved = false;
            for edit in EDITS {
                match self.apply_all(edit, deadline) {
                    Err(end) => return end,
                    Ok(any) => improved |= any,
                }
            }
            if !improved {
                return Minimization::Done;
            }
        }
    }

    /// Tries `edit` at every site: whether any was kept, or why the search ends.
    fn apply_all(&mut self, edit: Edit, deadline: Instant) -> Result<bool, Minimization> {
        let mut kept = false;
        let mut site = 0;
        while site < edits::sites(edit, &self.current) {
            if self.cutoff.reached() {
                return Err(Minimization::InProgress);
            }
            if Instant::now() >= deadline {
                return Err(Minimization::BudgetSpent);
            }
            match edits::apply(edit, &self.current, site) {
                Some(candidate) if self.keeps_failing(&candidate) => {
                    self.current = candidate;
                    self.steps.push(edit.name());
                    kept = true;
                }
                _ => site += 1,
            }
        }
        Ok(kept)
    }

    /// Reads the current program back from its printed text and checks it once more, so
    /// that the failure's lines are lines of that text; keeps the program as it is when the
    /// text does not fail the same way (or the cutoff stops the check).
    fn relocate(&mut self) -> LineRefs {
        let Ok(Some(located)) = parse_text(&print_module(&self.current)) else { return LineRefs::Original };
        let Some(site) = moved_site(self.site, &self.current, &located) else { return LineRefs::Original };
        let result = Chain { config: &self.chain }.run_cut(&located, &self.cutoff);
        if !result.failure().is_some_and(|f| f.signature() == self.signature && f.site() == site) {
            return LineRefs::Original;
        }
        self.current = located;
        self.result = result;
        self.site = site;
        LineRefs::Minimized
    }

    /// Whether `result` fails as the search's input did: the same signature, at the same site.
    fn same_failure(&self, result: &ChainResult) -> bool {
        result.failure().is_some_and(|f| f.signature() == self.signature && f.site() == self.site)
    }

    fn keeps_failing(&mut self, candidate: &IRModule) -> bool {
        if Size::of(candidate) >= Size::of(&self.current) || check_module(candidate).has_errors() {
            return false;
        }
        if self.input_runs_cleanly && !runs_cleanly(candidate) {
            return false;
        }
        self.attempts += 1;
        let result = Chain { config: &self.chain }.run_cut(candidate, &self.cutoff);
        let same = self.same_failure(&result);
        if same {
            self.result = result;
        }
        same
    }
}

/// `site`, a line of `before`'s spans, as the line of the same statement in `after`, the same
/// program read back from its text (its statements in the same order): `None` when no
/// statement of `before` is at that line, or the two do not have the same statements;
/// `Some(None)` when there is no site.
fn moved_site(site: Option<Site>, before: &IRModule, after: &IRModule) -> Option<Option<Site>> {
    let Some(site) = site else { return Some(None) };
    let (before, after) = (statement_lines(before), statement_lines(after));
    if before.len() != after.len() {
        return None;
    }
    let at = before.iter().position(|&line| line == site.line)?;
    Some(Site::at_line(after[at]))
}

/// The line of every statement of `module` but sequences (a sequence of one statement does not
/// read back as one), in walk order.
fn statement_lines(module: &IRModule) -> Vec<u32> {
    use tirproof_ir::visit::{walk_stmt, Visitor};
    struct Lines(Vec<u32>);
    impl Visitor for Lines {
        fn visit_stmt(&mut self, stmt: &tirproof_ir::Stmt) {
            if !matches!(stmt.kind, tirproof_ir::StmtKind::Seq(_)) {
                self.0.push(stmt.span.line);
            }
            walk_stmt(self, stmt);
        }
    }
    let mut lines = Lines(Vec::new());
    module.functions.iter().for_each(|f| lines.visit_stmt(&f.body));
    lines.0
}
