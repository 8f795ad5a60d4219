//! The typed layer over the Z3 solver: queries, verdicts and SMT-LIB dumps.
//!
//! A [`Query`] says "under these assumptions, these obligations hold" about variables it
//! declares. [`Query::check`] asserts the assumptions and the negation of the conjunction of the
//! obligations, runs Z3 with the query's time limit, and maps the answer:
//!
//! | Z3 says | verdict |
//! | --- | --- |
//! | unsat | [`Verdict::Proved`], or [`Verdict::Vacuous`] when the assumptions alone are unsat |
//! | sat | [`Verdict::Refuted`] with the model's values of the declared variables (an [`Assignment`]) |
//! | unknown (time limit, incompleteness) | [`Verdict::Unknown`] with the reason ([`UnknownReason`]) |
//!
//! Only [`Verdict::Proved`] is a pass ([`Verdict::is_proved`]).
//!
//! A [`Session`] (module `session`) checks many queries on one solver, and the obligations of
//! a query one at a time ([`Scope::check`]), with the same verdicts. Time limits are enforced
//! by a [`Watchdog`] (module `watchdog`) rather than Z3's per-check timer.

use std::cell::Cell;
use std::fmt;
use std::thread::LocalKey;
use std::time::{Duration, Instant};

use thiserror::Error;
use z3::ast::{Bool, Int, BV};
use z3::{Model, SatResult, Solver};

mod assignment;
mod budget;
mod session;
mod unknown;
mod watchdog;

pub use assignment::{Assignment, Entry};
pub use budget::{budget_spent, stoppable, within_budget, BUDGET_SPENT};
pub use session::{Counterexample, Outcome, Scope, Session};
pub use unknown::UnknownReason;
pub use watchdog::{checks_on_this_thread, watched, CheckCount, Watchdog};

/// Runs `f` with a new Z3 context as the thread's context (every term, solver and watchdog
/// made inside belongs to it), dropped afterwards; inside [`in_one_context`], runs `f` in that
/// context instead.
///
/// Why: Z3's search depends on the internal ids of terms, which grow with everything a
/// long-lived context has seen; in a fuzzing campaign, one thread's context then made a
/// verification that takes 0.1 s in a fresh process run past its time limit. A fresh context
/// per verification makes every result the one a standalone run reproduces.
pub fn in_fresh_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    if ONE_CONTEXT.get() {
        return f();
    }
    z3::with_z3_config(&config(), f)
}

/// The configuration of every context the verifier makes, with Z3's own SIGINT handling off.
///
/// Why: with `ctrl_c` on (Z3's default), every check installs a SIGINT handler that turns a
/// Ctrl-C into an `unknown` answer of the running check ("interrupted from keyboard") and
/// swallows the signal, so a program could not stop on Ctrl-C while Z3 runs (nor restore its
/// own handler reliably when checks on several threads overlap). The program's own handler
/// stops checks through the time budget instead (see [`stoppable`]).
fn config() -> z3::Config {
    ctrl_c_off();
    z3::Config::new()
}

/// Turns Z3's SIGINT handling off for the process, once (see [`config`]); also called by
/// [`watched`], which every check goes through, for checks on a thread's default context.
fn ctrl_c_off() {
    static CTRL_C_OFF: std::sync::Once = std::sync::Once::new();
    CTRL_C_OFF.call_once(|| z3::set_global_param("ctrl_c", "false"));
}

thread_local! {
    /// Whether the thread runs inside [`in_one_context`].
    static ONE_CONTEXT: Cell<bool> = const { Cell::new(false) };
}

/// Z3 gave no context (it does so when it cannot allocate one: the process is out of memory).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("Z3 could not create a context (out of memory?)")]
pub struct NoContext;

/// Runs `f` in a new Z3 context that every verification and validation inside shares (rather
/// than one each), dropped afterwards; [`NoContext`] when Z3 cannot create one (the `z3` crate
/// panics then, before `f` runs; a panic of `f` itself goes on unwinding).
///
/// For a fixed sequence of verifications, such as the oracles run on one program: creating a
/// context costs about 0.4 ms, more than many small verifications, and the sequence is still
/// reproduced exactly by running it again.
pub fn in_one_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> Result<R, NoContext> {
    if ONE_CONTEXT.get() {
        return Ok(f());
    }
    let entered = std::sync::atomic::AtomicBool::new(false);
    let run = || {
        entered.store(true, std::sync::atomic::Ordering::SeqCst);
        with_cell(&ONE_CONTEXT, true, f)
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| z3::with_z3_config(&config(), run))) {
        Ok(result) => Ok(result),
        Err(_) if !entered.load(std::sync::atomic::Ordering::SeqCst) => Err(NoContext),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Runs `f` with the thread-local `cell` set to `value`, and its value before restored on the
/// way out, a panic included (the oracle chain catches panics and goes on).
fn with_cell<T: Copy + 'static, R>(cell: &'static LocalKey<Cell<T>>, value: T, f: impl FnOnce() -> R) -> R {
    struct Restore<T: Copy + 'static>(&'static LocalKey<Cell<T>>, T);
    impl<T: Copy + 'static> Drop for Restore<T> {
        fn drop(&mut self) {
            self.0.set(self.1);
        }
    }
    let _restore = Restore(cell, cell.get());
    cell.set(value);
    f()
}

/// The prefix of the Z3 constant of every declared variable (see [`Query`]).
pub const SYMBOL_PREFIX: &str = "v_";

/// The time limit of a query unless [`Query::with_timeout`] sets another.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The answer to a [`Query`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The obligations hold under the assumptions, and the assumptions can hold.
    Proved,
    /// The obligations can fail: values of the query's declared variables, in declaration order,
    /// that satisfy the assumptions and break an obligation.
    Refuted(Assignment),
    /// Z3 could not decide within the limit, or gave up; the reason. Never a pass.
    Unknown(UnknownReason),
    /// The assumptions contradict each other, so the obligations hold only vacuously. Never a
    /// pass: it means the assumptions are encoded wrongly.
    Vacuous,
}

impl Verdict {
    /// Whether this verdict is a pass: true for [`Verdict::Proved`] only.
    #[must_use]
    pub fn is_proved(&self) -> bool {
        matches!(self, Verdict::Proved)
    }

    /// The counterexample of a [`Verdict::Refuted`].
    #[must_use]
    pub fn counterexample(&self) -> Option<&Assignment> {
        match self {
            Verdict::Refuted(values) => Some(values),
            _ => None,
        }
    }

    /// Whether this is a [`Verdict::Unknown`] that the run's time budget caused.
    #[must_use]
    pub fn is_budget_spent(&self) -> bool {
        matches!(self, Verdict::Unknown(reason) if reason.is_budget_spent())
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Proved => write!(f, "proved"),
            Verdict::Refuted(values) if values.is_empty() => write!(f, "refuted"),
            Verdict::Refuted(values) => write!(f, "refuted: {values}"),
            Verdict::Unknown(reason) => write!(f, "unknown: {reason}"),
            Verdict::Vacuous => write!(f, "vacuous: the assumptions contradict each other"),
        }
    }
}

/// One obligation of a [`Query`], as [`Query::require`] numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObligationId(usize);

impl ObligationId {
    /// The obligation's position among its query's obligations (from 0).
    #[must_use]
    pub fn index(self) -> usize {
        self.0
    }
}

impl fmt::Display for ObligationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "obligation {}", self.0)
    }
}

/// How the bits of a bit-vector variable are read when it is reported in a counterexample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signedness {
    /// Two's complement, like TIR's `int32`.
    Signed,
    /// Unsigned, like TIR's `uint32`.
    Unsigned,
}

/// A variable that cannot be declared.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    /// Names are non-empty and hold neither `|` nor `\\`, which SMT-LIB symbols cannot carry.
    #[error("query `{query}`: `{name}` cannot name a variable: names are non-empty and hold neither `|` nor `\\`")]
    InvalidName {
        /// The query's name.
        query: String,
        /// The name asked for.
        name: String,
    },
    /// The name is already declared in the query.
    #[error("query `{query}`: variable `{name}` is declared twice")]
    DuplicateVariable {
        /// The query's name.
        query: String,
        /// The variable's name.
        name: String,
    },
    /// Bit-vector widths are 1 to 64, so that every value fits a counterexample's `i64`.
    #[error("query `{query}`: bit-vector variable `{name}` has width {width}; the widths supported are 1 to 64")]
    UnsupportedWidth {
        /// The query's name.
        query: String,
        /// The variable's name.
        name: String,
        /// The width asked for.
        width: u32,
    },
}

/// A declared variable and how to report its value.
#[derive(Debug, Clone)]
enum Term {
    Int(Int),
    Bv(BV, Signedness),
}

/// A proof obligation for Z3: declared variables, assumptions and obligations, and a time limit.
///
/// Terms are built with the `z3` crate from the variables that [`Query::int`] and [`Query::bv`]
/// return. They live in the calling thread's Z3 context, so a query stays on one thread.
///
/// In Z3 (and in [`Query::to_smtlib`]) the variable `x` is the constant `v_x`
/// ([`SYMBOL_PREFIX`]): a bare name could be an SMT-LIB or Z3 builtin (`and`, `abs`, `mod`,
/// ...) or one of the names Z3 gives to `let` bindings, and the dump would not parse.
/// Counterexamples use the names as declared. Constants made with the `z3` crate directly must
/// not start with the prefix.
#[derive(Debug, Clone)]
pub struct Query {
    name: String,
    timeout: Duration,
    variables: Vec<(String, Term)>,
    assumptions: Vec<Bool>,
    obligations: Vec<Bool>,
    /// Facts every run satisfies unless it traps first (a divisor that is not 0 where a
    /// condition is evaluated): not assumptions, since a race may come before the trap, but
    /// a counterexample that breaks one describes no complete run and is not trusted as it is.
    trap_free: Vec<Bool>,
    /// Facts that single out a model of the assumptions the encoder knows of (see
    /// [`Query::hint`]).
    hints: Vec<Bool>,
    /// Whether a check found the assumptions consistent (see [`Query::consistent`]).
    consistent: std::cell::Cell<bool>,
}

impl Query {
    /// An empty query (it proves `true`) with the [`DEFAULT_TIMEOUT`]. The name appears in
    /// errors and in the SMT-LIB dump.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Query {
            name: name.into(),
            timeout: DEFAULT_TIMEOUT,
            variables: Vec::new(),
            assumptions: Vec::new(),
            obligations: Vec::new(),
            trap_free: Vec::new(),
            hints: Vec::new(),
            consistent: std::cell::Cell::new(false),
        }
    }

    /// Whether a check already found the assumptions consistent. Facts added per use that
    /// constrain only variables the assumptions do not mention, each satisfiable alone (a
    /// wait's slack fixed to a value), keep them consistent: such uses need not check again.
    #[must_use]
    pub fn consistent(&self) -> bool {
        self.consistent.get()
    }

    /// Records that a check found the assumptions consistent (with or without such facts).
    pub fn mark_consistent(&self) {
        self.consistent.set(true);
    }

    /// The same query with another time limit; it bounds the whole of [`Query::check`]
    /// (SMT-LIB dumps state it in whole milliseconds, at least one).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The query's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The query's time limit.
    #[must_use]
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Declares a mathematical (unbounded) integer variable.
    ///
    /// # Errors
    ///
    /// [`QueryError::InvalidName`] for a name SMT-LIB cannot carry,
    /// [`QueryError::DuplicateVariable`] when the name is taken.
    pub fn int(&mut self, name: &str) -> Result<Int, QueryError> {
        self.fresh_name(name)?;
        let var = Int::new_const(format!("{SYMBOL_PREFIX}{name}"));
        self.variables.push((name.to_owned(), Term::Int(var.clone())));
        Ok(var)
    }

    /// Declares a bit-vector variable of `width` bits (1 to 64), reported as `signedness` says.
    ///
    /// # Errors
    ///
    /// [`QueryError::InvalidName`] for a name SMT-LIB cannot carry,
    /// [`QueryError::DuplicateVariable`] when the name is taken,
    /// [`QueryError::UnsupportedWidth`] for a width outside 1 to 64.
    pub fn bv(&mut self, name: &str, width: u32, signedness: Signedness) -> Result<BV, QueryError> {
        self.fresh_name(name)?;
        if !(1..=64).contains(&width) {
            return Err(QueryError::UnsupportedWidth { query: self.name.clone(), name: name.to_owned(), width });
        }
        let var = BV::new_const(format!("{SYMBOL_PREFIX}{name}"), width);
        self.variables.push((name.to_owned(), Term::Bv(var.clone(), signedness)));
        Ok(var)
    }

    /// Adds an assumption: a fact the obligations may rely on.
    pub fn assume(&mut self, fact: Bool) {
        self.assumptions.push(fact);
    }

    /// Adds a fact that only runs that trap break (see the field's docs).
    pub fn trap_free(&mut self, fact: Bool) {
        self.trap_free.push(fact);
    }

    /// The facts only runs that trap break.
    #[must_use]
    pub fn trap_free_facts(&self) -> &[Bool] {
        &self.trap_free
    }

    /// Adds a fact that, with the assumptions, the encoder expects to have a model: whether
    /// the assumptions can hold is asked with the hints first, and a model of both is a model
    /// of the assumptions; when the hinted check finds none, the assumptions alone are asked.
    /// A hint never changes an answer, only how fast it comes (a vacuity check of many
    /// pairwise constraints, say, which one chosen value of each variable satisfies at once).
    pub fn hint(&mut self, fact: Bool) {
        self.hints.push(fact);
    }

    /// Adds an obligation: a fact to prove from the assumptions. Returns its id, which names
    /// it to a [`Scope`] that checks obligations one at a time.
    pub fn require(&mut self, obligation: Bool) -> ObligationId {
        self.obligations.push(obligation);
        ObligationId(self.obligations.len() - 1)
    }

    /// The obligation `id` names, if this query has it.
    fn obligation(&self, id: ObligationId) -> Option<&Bool> {
        self.obligations.get(id.0)
    }

    /// The ids of the obligations, in order.
    pub fn obligation_ids(&self) -> impl Iterator<Item = ObligationId> {
        (0..self.obligations.len()).map(ObligationId)
    }

    /// Runs Z3 on the assumptions and the negated obligations, within the time limit.
    ///
    /// When that is unsat, a second call (with the time left) checks that the assumptions alone
    /// are satisfiable, so that contradictory assumptions give [`Verdict::Vacuous`] rather than
    /// a proof.
    #[must_use]
    pub fn check(&self) -> Verdict {
        watched(|watchdog| self.check_watched(watchdog))
    }

    /// [`Query::check`] under a watchdog the caller holds (cheaper for many queries in a row).
    #[must_use]
    pub fn check_watched(&self, watchdog: &Watchdog) -> Verdict {
        let deadline = Instant::now() + self.timeout;
        let solver = Solver::new();

        for fact in &self.assumptions {
            solver.assert(fact);
        }
        solver.assert(self.goal().not());
        match watchdog.check(&solver, deadline) {
            SatResult::Sat => self.counterexample(&solver),
            SatResult::Unknown => Verdict::Unknown(self.reason_unknown(&solver, deadline)),
            SatResult::Unsat => self.check_assumptions(watchdog, deadline),
        }
    }

    /// Why a check of `solver` for this query was inconclusive, with the time limit or the
    /// budget named as such (Z3 says "canceled" when the watchdog stops it).
    fn reason_unknown(&self, solver: &Solver, deadline: Instant) -> UnknownReason {
        let why = reason_unknown(solver);
        let query = self.name.clone();
        if budget_spent() && (why == "canceled" || Instant::now() >= budget::within(deadline)) {
            UnknownReason::BudgetSpent { query }
        } else if why == "canceled" || Instant::now() >= deadline {
            UnknownReason::TimeLimit { query, limit: self.timeout }
        } else {
            UnknownReason::GaveUp(why)
        }
    }

    /// The query as an SMT-LIB 2 script for the `z3` command line tool: the time limit, the
    /// declarations, the assumptions, the negated obligations and `(check-sat)`. `unsat` means
    /// proved (not counting the vacuity check of [`Query::check`]), `sat` refuted.
    #[must_use]
    pub fn to_smtlib(&self) -> String {
        self.script(&[self.goal().not()], &self.name)
    }

    /// The SMT-LIB 2 script of the assumptions and `facts`, for the `z3` command line tool.
    fn script(&self, facts: &[Bool], title: &str) -> String {
        let solver = Solver::new();
        for fact in self.assumptions.iter().chain(facts) {
            solver.assert(fact);
        }
        let title = title.replace(['\n', '\r'], " ");
        format!(
            "; tirproof query: {title}\n\
             ; assumptions and negated obligations: unsat = proved, sat = refuted, unknown = not a pass\n\
             (set-option :timeout {})\n{}",
            timeout_ms(self.timeout),
            solver.to_smt2()
        )
    }

    /// Checks that the name can be written in SMT-LIB and is not declared yet.
    fn fresh_name(&self, name: &str) -> Result<(), QueryError> {
        if name.is_empty() || name.contains(['|', '\\']) {
            return Err(QueryError::InvalidName { query: self.name.clone(), name: name.to_owned() });
        }
        if self.variables.iter().any(|(declared, _)| declared == name) {
            return Err(QueryError::DuplicateVariable { query: self.name.clone(), name: name.to_owned() });
        }
        Ok(())
    }

    /// The conjunction of the obligations.
    fn goal(&self) -> Bool {
        if self.obligations.is_empty() {
            Bool::from_bool(true)
        } else {
            Bool::and(&self.obligations)
        }
    }

    /// The verdict after the obligations were found to follow from the assumptions.
    fn check_assumptions(&self, watchdog: &Watchdog, deadline: Instant) -> Verdict {
        if self.assumptions.is_empty() {
            return Verdict::Proved;
        }
        let solver = Solver::new();
        for fact in &self.assumptions {
            solver.assert(fact);
        }
        if self.hinted_model_exists(&solver, watchdog, deadline) {
            return Verdict::Proved;
        }
        vacuity_verdict(watchdog.check(&solver, deadline), || self.reason_unknown(&solver, deadline))
    }

    /// Whether `solver` (holding the assumptions and whatever else is asked) has a model that
    /// also satisfies the hints, found within a share of the time left: a model of the facts
    /// asserted either way.
    pub(crate) fn hinted_model_exists(&self, solver: &Solver, watchdog: &Watchdog, deadline: Instant) -> bool {
        if self.hints.is_empty() {
            return false;
        }
        solver.push();
        for hint in &self.hints {
            solver.assert(hint);
        }
        let share = deadline.saturating_duration_since(Instant::now()) / HINTED_SHARE;
        let found = watchdog.check(solver, Instant::now() + share) == SatResult::Sat;
        solver.pop(1);
        found
    }

    /// The counterexample in the model of a satisfiable check.
    fn counterexample(&self, solver: &Solver) -> Verdict {
        match solver.get_model().ok_or(UnknownReason::NoModel).and_then(|model| self.values_in(&model)) {
            Ok(values) => Verdict::Refuted(values),
            Err(why) => Verdict::Unknown(why),
        }
    }

    /// The values of the declared variables in `model`, in declaration order; why not, when one
    /// does not fit in an i64.
    fn values_in(&self, model: &Model) -> Result<Assignment, UnknownReason> {
        let mut values = Assignment::new();
        for (name, term) in &self.variables {
            let value = match term {
                Term::Int(var) => model.eval(var, true).and_then(|v| v.as_i64()),
                Term::Bv(var, signedness) => {
                    model.eval(var, true).and_then(|v| bv_value(v.as_u64()?, var.get_size(), *signedness))
                }
            };
            let Some(value) = value else {
                return Err(UnknownReason::ValueOutOfRange { variable: name.clone() });
            };
            values.push(name.clone(), value);
        }
        Ok(values)
    }
}

/// The share of the time left that a vacuity check with hints may take (see [`Query::hint`]).
const HINTED_SHARE: u32 = 4;

/// A time limit in Z3's unit, whole milliseconds, at least 1 (0 would mean no limit).
fn timeout_ms(timeout: Duration) -> u32 {
    u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX).max(1)
}

/// The verdict on obligations that follow from the assumptions, once `result` says whether
/// the assumptions alone can hold.
fn vacuity_verdict(result: SatResult, why_unknown: impl FnOnce() -> UnknownReason) -> Verdict {
    match result {
        SatResult::Sat => Verdict::Proved,
        SatResult::Unsat => Verdict::Vacuous,
        SatResult::Unknown => Verdict::Unknown(UnknownReason::AssumptionsUndecided(Box::new(why_unknown()))),
    }
}

/// Why the last check of `solver` was inconclusive.
fn reason_unknown(solver: &Solver) -> String {
    solver.get_reason_unknown().unwrap_or_else(|| "Z3 gave no reason".to_owned())
}

/// The value of a bit-vector numeral of `width` bits (1 to 64), read with `signedness`.
fn bv_value(bits: u64, width: u32, signedness: Signedness) -> Option<i64> {
    match signedness {
        Signedness::Unsigned => i64::try_from(bits).ok(),
        Signedness::Signed => {
            let unused = 64 - width;
            Some((bits << unused).cast_signed() >> unused)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{bv_value, in_fresh_context, in_one_context, timeout_ms, Signedness};
    use std::time::Duration;

    /// The thread's Z3 context, as an address (comparable across closures).
    fn context_address() -> usize {
        z3::Context::thread_local().get_z3_context().as_ptr() as usize
    }

    #[test]
    fn verifications_inside_one_context_share_it() {
        let (outer, inner) =
            in_one_context(|| (context_address(), in_fresh_context(context_address))).expect("Z3 gives a context");
        assert_eq!(outer, inner);
        // Outside, each verification gets its own.
        let (outer, inner) = in_fresh_context(|| (context_address(), in_fresh_context(context_address)));
        assert_ne!(outer, inner);
    }

    #[test]
    fn a_panic_inside_one_context_does_not_leave_it_shared() {
        let caught = std::panic::catch_unwind(|| in_one_context(|| panic!("inside")));
        assert!(caught.is_err());
        let (outer, inner) = in_fresh_context(|| (context_address(), in_fresh_context(context_address)));
        assert_ne!(outer, inner, "the next verifications share nothing");
    }

    #[test]
    fn bit_vector_values_are_read_with_their_signedness() {
        assert_eq!(bv_value(0x7fff_ffff, 32, Signedness::Signed), Some(2_147_483_647));
        assert_eq!(bv_value(0x8000_0000, 32, Signedness::Signed), Some(-2_147_483_648));
        assert_eq!(bv_value(0x8000_0000, 32, Signedness::Unsigned), Some(2_147_483_648));
        assert_eq!(bv_value(1, 1, Signedness::Signed), Some(-1));
        assert_eq!(bv_value(u64::MAX, 64, Signedness::Signed), Some(-1));
        assert_eq!(bv_value(u64::MAX, 64, Signedness::Unsigned), None);
    }

    #[test]
    fn time_limits_are_whole_milliseconds_and_never_zero() {
        assert_eq!(timeout_ms(Duration::from_millis(1500)), 1500);
        assert_eq!(timeout_ms(Duration::ZERO), 1);
        assert_eq!(timeout_ms(Duration::from_secs(u64::MAX)), u32::MAX);
    }
}
