//! Many checks on one Z3 solver. A [`Session`] keeps its solver between checks; a [`Scope`]
//! asserts one query's assumptions once and then checks its obligations one at a time, each
//! in its own push/pop scope.
//!
//! Why: creating a solver and running Z3's preprocessing costs more than checking a small
//! obligation, and one large disjunction of independent violations is much slower to refute
//! than each violation on its own.
//!
//! Invariants:
//! * the verdicts are those of [`Query::check`]: the obligations hold together exactly when
//!   each holds, and [`Scope::assumptions`] (asked after every obligation held) tells a proof
//!   from contradictory assumptions ([`Verdict::Vacuous`]);
//! * the query's time limit holds for each check of a scope (each obligation is a proof of its
//!   own; a query of thousands of small obligations must not run out of one shared budget):
//!   the session's [`Watchdog`] stops a check that overruns it. A check first gets a tenth of
//!   it on the session's solver, then (if that did not decide it) the whole limit on a fresh
//!   solver, whose preprocessing decides some checks the incremental solver cannot; only then
//!   is it [`Outcome::Unknown`];
//! * the solver holds nothing between scopes: a scope pops what it pushed when dropped.

use std::cell::RefCell;
use std::collections::HashSet;
use std::time::Instant;

use z3::ast::{Bool, Int, BV};
use z3::{Model, SatResult, Solver};

use super::{vacuity_verdict, Assignment, ObligationId, Query, Signedness, Term, UnknownReason, Verdict, Watchdog};

/// The share of a check's time limit it first gets on the session's solver; when that is not
/// enough, the check is run again on a fresh solver with the whole limit.
const FIRST_TRY_SHARE: u32 = 10;

/// A counterexample value beyond this (an extent of 2^16 iterations) is costly to replay, so a
/// refutation looks for one within it first ([`Scope::small`]).
const SMALL_VALUE: i64 = 1 << 16;
/// Bit-vectors of up to this many bits cannot hold a value beyond [`SMALL_VALUE`].
const SMALL_VALUE_BITS: u32 = 16;

/// A Z3 solver reused for many queries on one thread (its terms belong to the thread's Z3
/// context), with the watchdog that enforces their time limits.
pub struct Session<'w> {
    solver: Solver,
    watchdog: &'w Watchdog<'w>,
}

impl<'w> Session<'w> {
    /// A session on the calling thread's context; `watchdog` must watch that context (see
    /// [`watched`](super::watched)).
    pub fn new(watchdog: &'w Watchdog<'w>) -> Self {
        Session { solver: Solver::new(), watchdog }
    }

    /// A session whose solver Z3 configures for `logic` (an SMT-LIB logic name) once, rather
    /// than for each check from what the check asserts. The logic only configures: a term
    /// outside it is not rejected, and a check it leaves undecided goes to a fresh solver
    /// configured the usual way (see [`Scope::check`]).
    pub fn for_logic(watchdog: &'w Watchdog<'w>, logic: &str) -> Self {
        let solver = Solver::new_for_logic(logic).unwrap_or_default();
        Session { solver, watchdog }
    }

    /// The verdict of [`Query::check`] on `query`, from this session's solver: the obligations
    /// one at a time (the first that fails gives the counterexample), then the assumptions.
    pub fn check_query(&self, query: &Query) -> Verdict {
        let scope = self.open(query, &[]);
        for obligation in query.obligation_ids() {
            match scope.check(obligation) {
                Outcome::Holds => {}
                Outcome::Fails(found) => return Verdict::Refuted(found.values),
                Outcome::Unknown(why) => return Verdict::Unknown(why),
            }
        }
        scope.assumptions()
    }

    /// [`Query::check`] on a fresh solver, under this session's watchdog.
    pub fn check_query_fresh(&self, query: &Query) -> Verdict {
        query.check_watched(self.watchdog)
    }

    /// Runs the solver's check, stopped at `deadline`.
    fn check(&self, deadline: Instant) -> SatResult {
        self.watchdog.check(&self.solver, deadline)
    }

    /// Asserts `query`'s assumptions and `extra` (facts for this use of the query only) until
    /// the returned scope is dropped.
    pub fn open<'s>(&'s self, query: &'s Query, extra: &[Bool]) -> Scope<'s, 'w> {
        self.solver.push();
        for fact in query.assumptions.iter().chain(extra) {
            self.solver.assert(fact);
        }
        Scope { session: self, query, extra: extra.to_vec(), held: RefCell::default() }
    }
}

/// One query's assumptions, asserted on a session's solver.
pub struct Scope<'s, 'w> {
    session: &'s Session<'w>,
    query: &'s Query,
    extra: Vec<Bool>,
    /// Obligations proved in this scope: pairs of different events often build the same term.
    held: RefCell<HashSet<Bool>>,
}

/// What the check of one obligation says.
pub enum Outcome {
    /// It follows from the assumptions (which may still contradict each other).
    Holds,
    /// It can fail.
    Fails(Counterexample),
    /// Z3 could not decide (time limit, incompleteness): the reason. Never a pass.
    Unknown(UnknownReason),
}

/// Values that satisfy the assumptions and break an obligation.
pub struct Counterexample {
    model: Model,
    values: Assignment,
}

impl Counterexample {
    /// Whether `fact` holds in this counterexample (false when the model cannot say).
    #[must_use]
    pub fn satisfies(&self, fact: &Bool) -> bool {
        self.model.eval(fact, true).and_then(|v| v.as_bool()) == Some(true)
    }

    /// The values of the query's declared variables, in declaration order.
    #[must_use]
    pub fn values(&self) -> &Assignment {
        &self.values
    }

    /// The value of any integer term (over the query's variables) in this counterexample.
    #[must_use]
    pub fn int(&self, term: &Int) -> Option<i64> {
        self.model.eval(term, true).and_then(|v| v.as_i64())
    }

    /// The value of any boolean term in this counterexample.
    #[must_use]
    pub fn bool(&self, term: &Bool) -> Option<bool> {
        self.model.eval(term, true).and_then(|v| v.as_bool())
    }
}

impl Scope<'_, '_> {
    /// Checks obligation `id` (see [`Query::require`]) alone under the assumptions.
    #[must_use]
    pub fn check(&self, id: ObligationId) -> Outcome {
        let Some(obligation) = self.query.obligation(id) else {
            let query = self.query.name.clone();
            return Outcome::Unknown(UnknownReason::NoSuchObligation { query, obligation: id });
        };
        if obligation.as_bool() == Some(true) || self.held.borrow().contains(obligation) {
            // Nothing to ask the solver: the obligation is the constant `true`, or the same
            // term (Z3 terms are hash-consed) already held in this scope.
            return Outcome::Holds;
        }
        self.session.solver.push();
        self.session.solver.assert(obligation.not());
        let first_try = Instant::now() + self.query.timeout / FIRST_TRY_SHARE;
        let outcome = match self.session.check(first_try) {
            SatResult::Unsat => Some(Outcome::Holds),
            SatResult::Sat => {
                let found = counterexample(self.query, &self.session.solver);
                Some(self.small(&self.session.solver, found, first_try))
            }
            SatResult::Unknown => None,
        };
        self.session.solver.pop(1);
        let outcome = outcome.unwrap_or_else(|| self.check_fresh(obligation));
        if matches!(outcome, Outcome::Holds) {
            self.held.borrow_mut().insert(obligation.clone());
        }
        outcome
    }

    /// Checks an obligation on a fresh solver, with the whole time limit: Z3 preprocesses a
    /// fresh solver's problem (solving equations, simplifying `div` and `mod` by constants)
    /// where the session's incremental solver does not, so some checks that the session
    /// cannot decide in seconds take milliseconds there.
    fn check_fresh(&self, obligation: &Bool) -> Outcome {
        self.check_claim(obligation, &[])
    }

    /// The query's facts that only runs that trap break ([`Query::trap_free`]).
    #[must_use]
    pub fn trap_free(&self) -> &[Bool] {
        self.query.trap_free_facts()
    }

    /// Checks obligation `id` under the assumptions and `extra` facts, on a fresh solver with
    /// the whole time limit. For a check that refines an earlier one (its counterexample was
    /// not trusted): it is not remembered as held, since it holds only under `extra`.
    #[must_use]
    pub fn check_under(&self, id: ObligationId, extra: &[Bool]) -> Outcome {
        match self.query.obligation(id) {
            Some(obligation) => self.check_claim(obligation, extra),
            None => {
                let query = self.query.name.clone();
                Outcome::Unknown(UnknownReason::NoSuchObligation { query, obligation: id })
            }
        }
    }

    /// Checks `claim`, any term over the query's variables, under the assumptions and `extra`
    /// facts, on a fresh solver with the whole time limit.
    #[must_use]
    pub fn check_claim(&self, claim: &Bool, extra: &[Bool]) -> Outcome {
        let solver = Solver::new();
        for fact in self.query.assumptions.iter().chain(&self.extra).chain(extra) {
            solver.assert(fact);
        }
        solver.assert(claim.not());
        let deadline = Instant::now() + self.query.timeout;
        match self.session.watchdog.check(&solver, deadline) {
            SatResult::Unsat => Outcome::Holds,
            SatResult::Sat => {
                let found = counterexample(self.query, &solver);
                self.small(&solver, found, deadline)
            }
            SatResult::Unknown => Outcome::Unknown(self.query.reason_unknown(&solver, deadline)),
        }
    }

    /// `found`, or, when one of its values lies beyond `SMALL_VALUE`, a counterexample of the
    /// same failure (asserted on `solver`) with every variable within it, if Z3 finds one
    /// before `deadline`. Why: an executor replays a counterexample to confirm it, and a
    /// refutation at `n = 2147483642` (where an index wraps) cannot be run, while the same
    /// race is often there at `n = 8`; Z3's first model need not be the small one.
    fn small(&self, solver: &Solver, found: Outcome, deadline: Instant) -> Outcome {
        let Outcome::Fails(first) = &found else { return found };
        if first.values.iter().all(|e| e.value.unsigned_abs() <= SMALL_VALUE.unsigned_abs()) {
            return found;
        }
        solver.push();
        for (_, term) in &self.query.variables {
            match term {
                Term::Int(v) => {
                    solver.assert(v.ge(Int::from_i64(-SMALL_VALUE)));
                    solver.assert(v.le(Int::from_i64(SMALL_VALUE)));
                }
                // Narrower vectors hold only small values anyway.
                Term::Bv(v, signedness) if v.get_size() > SMALL_VALUE_BITS => {
                    let width = v.get_size();
                    let (low, high) = (BV::from_i64(-SMALL_VALUE, width), BV::from_i64(SMALL_VALUE, width));
                    match signedness {
                        Signedness::Signed => {
                            solver.assert(v.bvsge(&low));
                            solver.assert(v.bvsle(&high));
                        }
                        Signedness::Unsigned => solver.assert(v.bvule(&high)),
                    }
                }
                Term::Bv(..) => {}
            }
        }
        let smaller = match self.session.watchdog.check(solver, deadline) {
            SatResult::Sat => Some(counterexample(self.query, solver)),
            SatResult::Unsat | SatResult::Unknown => None,
        };
        solver.pop(1);
        match smaller {
            Some(outcome @ Outcome::Fails(_)) => outcome,
            _ => found,
        }
    }

    /// Facts that pin every variable of the query to its value in `found` (to ask about that
    /// one counterexample and nothing else).
    #[must_use]
    pub fn pinned(&self, found: &Counterexample) -> Vec<Bool> {
        self.query
            .variables
            .iter()
            .filter_map(|(_, term)| match term {
                Term::Int(var) => found.model.eval(var, true).map(|v| var.eq(&v)),
                Term::Bv(var, _) => found.model.eval(var, true).map(|v| var.eq(&v)),
            })
            .collect()
    }

    /// After every obligation held: [`Verdict::Proved`] when the assumptions can hold,
    /// [`Verdict::Vacuous`] when they contradict each other, else [`Verdict::Unknown`].
    #[must_use]
    pub fn assumptions(&self) -> Verdict {
        if self.query.assumptions.is_empty() && self.extra.is_empty() {
            return Verdict::Proved;
        }
        let deadline = Instant::now() + self.query.timeout;
        if self.query.hinted_model_exists(&self.session.solver, self.session.watchdog, deadline) {
            return Verdict::Proved;
        }
        vacuity_verdict(self.session.check(deadline), || self.reason_unknown(deadline))
    }

    /// The check of obligation `id` as a standalone SMT-LIB 2 script (see
    /// [`Query::to_smtlib`]): the assumptions, the extra facts and the negated obligation.
    #[must_use]
    pub fn to_smtlib(&self, id: ObligationId) -> String {
        let mut facts = self.extra.clone();
        facts.extend(self.query.obligation(id).map(Bool::not));
        self.query.script(&facts, &format!("{} #{}", self.query.name, id.index()))
    }

    /// Z3's reason, with the time limit named as such (Z3 says "canceled" when it fires).
    fn reason_unknown(&self, deadline: Instant) -> UnknownReason {
        self.query.reason_unknown(&self.session.solver, deadline)
    }
}

/// The counterexample in the model of `solver`'s satisfiable check.
fn counterexample(query: &Query, solver: &Solver) -> Outcome {
    let found = solver.get_model().ok_or(UnknownReason::NoModel).and_then(|model| {
        let values = query.values_in(&model)?;
        Ok(Counterexample { model, values })
    });
    match found {
        Ok(counterexample) => Outcome::Fails(counterexample),
        Err(why) => Outcome::Unknown(why),
    }
}

impl Drop for Scope<'_, '_> {
    fn drop(&mut self) {
        self.session.solver.pop(1);
    }
}
