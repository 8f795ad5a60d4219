//! The minimizer: shrinks a failing program while its failure signature holds.
//!
//! It first runs the oracle chain on the input and fails with [`ReduceError::DoesNotFail`]
//! unless the input fails (with the given signature, when one is given). Then it applies the
//! edits of [`edits`] greedily, most aggressive first, keeping a candidate only when it is
//! smaller by [`Size`], the checker accepts it, it runs without a fault on its own (when the
//! input did), and the chain fails on it with the same [`Signature`]. It stops at a fixed point (no edit applies) or at the time budget. Only the
//! oracle of the signature runs on candidates, which keeps each attempt cheap. Deterministic:
//! the same input, configuration and budget (when it is not reached) give the same result.

mod edits;
mod pipeline_edits;
mod size;

use std::time::{Duration, Instant};

use tirproof_ir::check::check_module;
use tirproof_ir::IRModule;

use crate::oracle::{runs_cleanly, Chain, ChainConfig, ChainResult, Failure, OracleName, Signature};

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
    /// The chain's seed (which schedule, inputs and mutated wait the failure needs).
    pub seed: u64,
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

/// Minimizes `input` (see the module documentation).
pub fn reduce(input: &IRModule, config: &ReduceConfig) -> Result<Reduction, ReduceError> {
    let start = Instant::now();
    let diags = check_module(input);
    if diags.has_errors() {
        return Err(ReduceError::Invalid(diags.to_string()));
    }
    let mut chain = config.chain.clone();
    if let Some(oracle) = config.oracle {
        chain.oracles = vec![oracle];
    }
    let first = Chain { config: &chain }.run(input);
    let failure = first.failure().cloned().ok_or(ReduceError::DoesNotFail(None))?;
    let signature = failure.signature();
    chain.oracles = vec![failure.oracle];
    let input_runs_cleanly = runs_cleanly(input);
    let mut search = Search {
        chain,
        signature,
        current: input.clone(),
        result: first,
        steps: Vec::new(),
        attempts: 0,
        input_runs_cleanly,
    };
    let budget_reached = search.run(start + config.budget);
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
        budget_reached,
        seed: config.chain.seed,
    })
}

struct Search {
    chain: ChainConfig,
    signature: Signature,
    current: IRModule,
    result: ChainResult,
    steps: Vec<&'static str>,
    attempts: usize,
    /// The original input runs without a fault: so must every kept candidate (a candidate that
    /// faults on its own would drift into failing for a reason that is not the bug).
    input_runs_cleanly: bool,
}

impl Search {
    /// Greedy passes over all edits until none applies; true when the deadline cut it short.
    fn run(&mut self, deadline: Instant) -> bool {
        loop {
            let mut improved = false;
            for edit in EDITS {
                match self.apply_all(edit, deadline) {
                    None => return true,
                    Some(any) => improved |= any,
                }
            }
            if !improved {
                return false;
            }
        }
    }

    /// Tries `edit` at every site; `None` when the deadline passed, else whether any was kept.
    fn apply_all(&mut self, edit: Edit, deadline: Instant) -> Option<bool> {
        let mut kept = false;
        let mut site = 0;
        while site < edits::sites(edit, &self.current) {
            if Instant::now() >= deadline {
                return None;
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
        Some(kept)
    }

    fn keeps_failing(&mut self, candidate: &IRModule) -> bool {
        if Size::of(candidate) >= Size::of(&self.current) || check_module(candidate).has_errors() {
            return false;
        }
        if self.input_runs_cleanly && !runs_cleanly(candidate) {
            return false;
        }
        self.attempts += 1;
        let result = Chain { config: &self.chain }.run(candidate);
        let same = result.failure().is_some_and(|f| f.signature() == self.signature);
        if same {
            self.result = result;
        }
        same
    }
}
