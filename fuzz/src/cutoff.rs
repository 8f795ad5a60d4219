//! When long work must stop: a deadline (a campaign's `--time`) and a stop flag (Ctrl-C), one
//! value that the campaign hands to the oracle chain and the minimizer.
//!
//! Invariants: once [`Cutoff::reached`] is true it stays true; Z3 checks run under
//! [`Cutoff::guard`] are stopped at the deadline or within milliseconds of the flag being set,
//! and what they leave undecided reads as the budget spent (never as a verdict).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tirproof_verify::solver::{stoppable, within_budget};

/// A deadline and a stop flag, either optional; the default never cuts anything.
#[derive(Clone, Debug, Default)]
pub struct Cutoff {
    pub deadline: Option<Instant>,
    pub stop: Option<Arc<AtomicBool>>,
}

impl Cutoff {
    /// Whether the deadline has passed or the flag is set.
    #[must_use]
    pub fn reached(&self) -> bool {
        self.stopped() || self.deadline.is_some_and(|end| Instant::now() >= end)
    }

    /// Whether the stop flag is set.
    #[must_use]
    pub fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|stop| stop.load(Ordering::SeqCst))
    }

    /// The same cutoff with `deadline` too, whichever comes first.
    #[must_use]
    pub fn until(&self, deadline: Instant) -> Cutoff {
        let deadline = Some(self.deadline.map_or(deadline, |end| end.min(deadline)));
        Cutoff { deadline, stop: self.stop.clone() }
    }

    /// Runs `f` with every Z3 check of this thread stopped at the cutoff.
    pub fn guard<R>(&self, f: impl FnOnce() -> R) -> R {
        within_budget(self.deadline, || stoppable(self.stop.clone(), f))
    }
}
