//! Time limits for Z3 checks, enforced by one watching thread per [`watched`] call instead of
//! Z3's own `timeout` parameter.
//!
//! Why: with a `timeout`, Z3 arms a timer for every check and, when the check ends, spins until
//! the timer thread has let go of it; for the small checks the verifier runs by the thousand,
//! that hand-off cost more than the checks themselves. Here a check only records its deadline
//! under a mutex; the watching thread sleeps until the earliest deadline and interrupts the
//! context's running check (`Z3_interrupt`, through the `z3` crate's `ContextHandle`) once it
//! has passed.
//!
//! Invariants:
//! * the watcher interrupts only while a check is armed and its deadline has passed, and it
//!   repeats the interrupt every [`RETRY`] until the check is disarmed, so an interrupt that
//!   lands before Z3 started listening is not lost (an interrupt between checks is harmless:
//!   the next check starts uninterrupted);
//! * the watcher is woken only when a deadline comes earlier than the one it sleeps towards
//!   (or it sleeps with none), so a run of checks costs a lock each and a thread switch at
//!   most about once per time limit;
//! * the watcher stops and is joined before [`watched`] returns, even when the closure panics;
//! * a check armed under a stop flag (see [`stoppable`](super::stoppable)) is looked at every
//!   [`STOP_POLL`] and interrupted once the flag is set.
//!
//! Every check of the verifier goes through [`Watchdog::check`], so it also keeps the thread's
//! count of checks and of the time Z3 spent in them ([`checks_on_this_thread`]), which profiles
//! read to tell the solver's share of the time from the rest.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use z3::{Context, ContextHandle, SatResult, Solver};

/// How often an overdue check is interrupted again until it returns.
const RETRY: Duration = Duration::from_millis(10);

/// How often a check armed under a stop flag is looked at: a Ctrl-C stops it about this soon.
const STOP_POLL: Duration = Duration::from_millis(50);

/// The solver checks one thread ran ([`Watchdog::check`]), and the time Z3 spent in them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckCount {
    /// How many checks.
    pub checks: u64,
    /// The time inside Z3's `check`, summed over them.
    pub in_solver: Duration,
}

impl CheckCount {
    /// This count with one more check that took `took`.
    fn plus(self, took: Duration) -> Self {
        CheckCount { checks: self.checks + 1, in_solver: self.in_solver + took }
    }

    /// The checks and time since `earlier`, a count of the same thread taken before.
    #[must_use]
    pub fn since(self, earlier: CheckCount) -> CheckCount {
        CheckCount {
            checks: self.checks.saturating_sub(earlier.checks),
            in_solver: self.in_solver.saturating_sub(earlier.in_solver),
        }
    }
}

thread_local! {
    /// The calling thread's checks so far (see [`checks_on_this_thread`]).
    static CHECKS: Cell<CheckCount> = const { Cell::new(CheckCount { checks: 0, in_solver: Duration::ZERO }) };
}

/// The solver checks the calling thread has run since it started, and the time Z3 spent in
/// them (take two counts and [`CheckCount::since`] for a stretch of work).
#[must_use]
pub fn checks_on_this_thread() -> CheckCount {
    CHECKS.get()
}

/// Checks on this thread's Z3 context with deadlines; see [`watched`].
pub struct Watchdog<'a> {
    shared: &'a Shared,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// The deadline of the check running now, if one is.
    armed: Option<Instant>,
    /// The stop flag of the check running now, if it runs under one.
    stop_flag: Option<Arc<AtomicBool>>,
    /// When the watcher wakes up next (`None`: not until it is notified).
    sleeping_until: Option<Instant>,
    stop: bool,
}

/// Runs `f` with a watchdog over the calling thread's Z3 context (the one `z3` terms and solvers
/// made on this thread belong to).
pub fn watched<R>(f: impl FnOnce(&Watchdog) -> R) -> R {
    super::ctrl_c_off();
    let context = Context::thread_local();
    let handle = context.handle();
    let shared = Shared::default();
    std::thread::scope(|scope| {
        scope.spawn(|| watch(&shared, &handle));
        let _stop = StopOnDrop(&shared);
        f(&Watchdog { shared: &shared })
    })
}

impl Watchdog<'_> {
    /// Runs `solver.check()`, interrupted once `deadline` (or the thread's time budget) has
    /// passed (the answer is then `Unknown`, and Z3 gives "canceled" as the reason).
    pub fn check(&self, solver: &Solver, deadline: Instant) -> SatResult {
        // The thread's time budget, when it ends first (see `budget`).
        self.arm(super::budget::within(deadline), super::budget::stop_flag());
        let _disarm = Disarm(self.shared);
        let start = Instant::now();
        let result = solver.check();
        CHECKS.set(CHECKS.get().plus(start.elapsed()));
        result
    }

    fn arm(&self, deadline: Instant, stop_flag: Option<Arc<AtomicBool>>) {
        let mut state = self.shared.lock();
        state.armed = Some(deadline);
        // Under a stop flag the watcher must look at least every `STOP_POLL`.
        let look_by = if stop_flag.is_some() { deadline.min(Instant::now() + STOP_POLL) } else { deadline };
        state.stop_flag = stop_flag;
        if state.sleeping_until.is_none_or(|until| look_by < until) {
            self.shared.wake.notify_one();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent under a panic (plain assignments), so a poisoned lock is
        // still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The watching thread: sleeps until the armed deadline, then interrupts until disarmed.
fn watch(shared: &Shared, handle: &ContextHandle<'_>) {
    let mut state = shared.lock();
    loop {
        if state.stop {
            return;
        }
        let now = Instant::now();
        let stopped = state.stop_flag.as_ref().is_some_and(|stop| stop.load(Ordering::SeqCst));
        let wait = match state.armed {
            Some(deadline) if deadline <= now || stopped => {
                handle.interrupt();
                Some(RETRY)
            }
            Some(deadline) if state.stop_flag.is_some() => Some((deadline - now).min(STOP_POLL)),
            Some(deadline) => Some(deadline - now),
            None => None,
        };
        state.sleeping_until = wait.map(|w| now + w);
        state = match wait {
            Some(w) => shared.wake.wait_timeout(state, w).unwrap_or_else(PoisonError::into_inner).0,
            None => shared.wake.wait(state).unwrap_or_else(PoisonError::into_inner),
        };
    }
}

/// Disarms the check when it returns (or unwinds).
struct Disarm<'a>(&'a Shared);

impl Drop for Disarm<'_> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.armed = None;
        state.stop_flag = None;
    }
}

/// Stops the watcher when the closure of [`watched`] returns (or unwinds), so that the scope
/// can join it.
struct StopOnDrop<'a>(&'a Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.lock().stop = true;
        self.0.wake.notify_one();
    }
}
