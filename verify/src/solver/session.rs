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
//! * a query never runs much longer than its time limit: every check of a scope is stopped by
//!   the session's [`Watchdog`] at the scope's deadline, and none starts once it has passed
//!   ([`Outcome::Unknown`]);
//! * the solver holds nothing between scopes: a scope pops what it pushed when dropped.

use std::time::{Duration, Instant};

use z3::ast::{Bool, Int};
use z3::{Model, SatResult, Solver};

use super::{no_model, reason_unknown, vacuity_verdict, Query, Verdict, Watchdog};

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

    /// The verdict of [`Query::check`] on `query`, from this session's solver: the obligations
    /// one at a time (the first that fails gives the counterexample), then the assumptions.
    pub fn check_query(&self, query: &Query) -> Verdict {
        let scope = self.open(query, &[]);
        for index in 0..query.obligations.len() {
            match scope.check(index) {
                Outcome::Holds => {}
                Outcome::Fails(found) => return Verdict::Refuted(found.values),
                Outcome::Unknown(why) => return Verdict::Unknown(why),
            }
        }
        scope.assumptions()
    }

    /// Runs the solver's check, stopped at `deadline`.
    fn check(&self, deadline: Instant) -> SatResult {
        self.watchdog.check(&self.solver, deadline)
    }

    /// Asserts `query`'s assumptions and `extra` (facts for this use of the query only) until
    /// the returned scope is dropped. The query's time limit starts now.
    pub fn open<'s>(&'s self, query: &'s Query, extra: &[Bool]) -> Scope<'s, 'w> {
        self.solver.push();
        for fact in query.assumptions.iter().chain(extra) {
            self.solver.assert(fact);
        }
        Scope { session: self, query, extra: extra.to_vec(), deadline: Instant::now() + query.timeout }
    }
}

/// One query's assumptions, asserted on a session's solver.
pub struct Scope<'s, 'w> {
    session: &'s Session<'w>,
    query: &'s Query,
    extra: Vec<Bool>,
    deadline: Instant,
}

/// What the check of one obligation says.
pub enum Outcome {
    /// It follows from the assumptions (which may still contradict each other).
    Holds,
    /// It can fail.
    Fails(Counterexample),
    /// Z3 could not decide (time limit, incompleteness): the reason. Never a pass.
    Unknown(String),
}

/// Values that satisfy the assumptions and break an obligation.
pub struct Counterexample {
    model: Model,
    values: Vec<(String, i64)>,
}

impl Counterexample {
    /// The values of the query's declared variables, in declaration order.
    #[must_use]
    pub fn values(&self) -> &[(String, i64)] {
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
    /// Checks obligation `index` (see [`Query::require`]) alone under the assumptions.
    #[must_use]
    pub fn check(&self, index: usize) -> Outcome {
        let Some(obligation) = self.query.obligations.get(index) else {
            return Outcome::Unknown(format!("query `{}` has no obligation {index}", self.query.name));
        };
        if obligation.as_bool() == Some(true) {
            // Nothing to ask the solver: the obligation is the constant `true`.
            return Outcome::Holds;
        }
        if self.time_left().is_none() {
            return Outcome::Unknown(timed_out(self.query));
        }
        self.session.solver.push();
        self.session.solver.assert(obligation.not());
        let outcome = match self.session.check(self.deadline) {
            SatResult::Unsat => Outcome::Holds,
            SatResult::Sat => self.counterexample(),
            SatResult::Unknown => Outcome::Unknown(self.reason_unknown()),
        };
        self.session.solver.pop(1);
        outcome
    }

    /// After every obligation held: [`Verdict::Proved`] when the assumptions can hold,
    /// [`Verdict::Vacuous`] when they contradict each other, else [`Verdict::Unknown`].
    #[must_use]
    pub fn assumptions(&self) -> Verdict {
        if self.query.assumptions.is_empty() && self.extra.is_empty() {
            return Verdict::Proved;
        }
        if self.time_left().is_none() {
            return Verdict::Unknown(timed_out(self.query));
        }
        vacuity_verdict(self.session.check(self.deadline), || self.reason_unknown())
    }

    /// The check of obligation `index` as a standalone SMT-LIB 2 script (see
    /// [`Query::to_smtlib`]): the assumptions, the extra facts and the negated obligation.
    #[must_use]
    pub fn to_smtlib(&self, index: usize) -> String {
        let mut facts = self.extra.clone();
        facts.extend(self.query.obligations.get(index).map(Bool::not));
        self.query.script(&facts, &format!("{} #{index}", self.query.name))
    }

    /// The time this scope has left, if any.
    fn time_left(&self) -> Option<Duration> {
        self.deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())
    }

    fn counterexample(&self) -> Outcome {
        let found = self.session.solver.get_model().ok_or_else(no_model).and_then(|model| {
            let values = self.query.values_in(&model)?;
            Ok(Counterexample { model, values })
        });
        match found {
            Ok(counterexample) => Outcome::Fails(counterexample),
            Err(why) => Outcome::Unknown(why),
        }
    }

    /// Z3's reason, with the time limit named as such (Z3 says "canceled" when it fires).
    fn reason_unknown(&self) -> String {
        let why = reason_unknown(&self.session.solver);
        if why == "canceled" || self.time_left().is_none() {
            timed_out(self.query)
        } else {
            why
        }
    }
}

impl Drop for Scope<'_, '_> {
    fn drop(&mut self) {
        self.session.solver.pop(1);
    }
}

fn timed_out(query: &Query) -> String {
    format!("timeout: query `{}` ran out of its {:?}", query.name, query.timeout)
}
