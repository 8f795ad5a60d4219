//! A time budget for everything one thread asks Z3 until it is lifted: the oracle chain gives
//! each program one, so that a program with thousands of slow checks cannot hold a fuzzing
//! campaign past its end.
//!
//! Invariants: while a budget is set, no check runs past it (the watchdog stops each check at
//! the earlier of its own deadline and the budget); a check the budget stopped is `unknown`
//! with [`UnknownReason::BudgetSpent`](super::UnknownReason::BudgetSpent) as its reason (its
//! text starts with [`BUDGET_SPENT`]), which is how callers tell it from a check that ran out
//! of its own time limit; the budget is lifted when [`within_budget`] returns or unwinds.
//!
//! A budget can also be spent early, by a stop flag the caller sets from another thread (a
//! Ctrl-C): under [`stoppable`], a set flag spends the budget and stops the running check.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The reason of every check the budget stopped.
pub const BUDGET_SPENT: &str = "the time budget of the run is spent";

thread_local! {
    static BUDGET: Cell<Option<Instant>> = const { Cell::new(None) };
    static STOP: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` with every Z3 check of this thread stopped at `deadline` (no budget: `None`).
/// An enclosing budget that ends earlier still holds.
pub fn within_budget<R>(deadline: Option<Instant>, f: impl FnOnce() -> R) -> R {
    let inner = match (BUDGET.get(), deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    super::with_cell(&BUDGET, inner, f)
}

/// Runs `f` with this thread's budget spent as soon as `stop` is set (no flag: `None`); the
/// watchdog then stops the running check within a few milliseconds. An enclosing flag is
/// replaced while `f` runs and restored afterwards, a panic included.
pub fn stoppable<R>(stop: Option<Arc<AtomicBool>>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            STOP.with_borrow_mut(|flag| *flag = self.0.take());
        }
    }
    let Some(stop) = stop else { return f() };
    let _restore = Restore(STOP.with_borrow_mut(|flag| flag.replace(stop)));
    f()
}

/// Whether this thread's budget, if it has one, is spent (or its stop flag set).
#[must_use]
pub fn budget_spent() -> bool {
    BUDGET.get().is_some_and(|end| Instant::now() >= end) || stop_flag().is_some_and(|stop| stop.load(Ordering::SeqCst))
}

/// This thread's stop flag, if it runs under [`stoppable`].
pub(super) fn stop_flag() -> Option<Arc<AtomicBool>> {
    STOP.with_borrow(Clone::clone)
}

/// `deadline`, or the budget's end if that comes first.
pub(super) fn within(deadline: Instant) -> Instant {
    BUDGET.get().map_or(deadline, |end| end.min(deadline))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use super::{budget_spent, stoppable, within, within_budget};

    #[test]
    fn a_set_stop_flag_spends_the_budget_inside_only() {
        let stop = Arc::new(AtomicBool::new(false));
        stoppable(Some(stop.clone()), || {
            assert!(!budget_spent());
            stop.store(true, Ordering::SeqCst);
            assert!(budget_spent());
        });
        assert!(!budget_spent());
    }

    #[test]
    fn a_budget_holds_inside_only_and_the_earlier_end_wins() {
        let later = Instant::now() + Duration::from_secs(3600);
        assert!(!budget_spent());
        assert_eq!(within(later), later);
        let soon = Instant::now() + Duration::from_secs(60);
        within_budget(Some(soon), || {
            assert_eq!(within(later), soon);
            within_budget(Some(later), || assert_eq!(within(later), soon, "the enclosing budget still holds"));
            within_budget(None, || assert_eq!(within(later), soon));
        });
        assert_eq!(within(later), later);
    }

    #[test]
    fn a_past_budget_is_spent_and_lifted_after_a_panic() {
        let past = Instant::now();
        let caught = std::panic::catch_unwind(|| {
            within_budget(Some(past), || {
                assert!(budget_spent());
                panic!("inside");
            })
        });
        assert!(caught.is_err());
        assert!(!budget_spent());
    }
}
