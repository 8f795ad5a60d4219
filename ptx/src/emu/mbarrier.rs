//! The state of an `mbarrier` object (PTX ISA, "Parallel Synchronization and Communication
//! Instructions: mbarrier"): the current phase, the arrivals it still expects and its
//! transaction count. A phase completes when both reach zero; it then moves to the next phase,
//! which expects the initial count of arrivals again and no transactions.
//!
//! The transaction count is signed: a copy may complete its bytes (`complete_tx`) before a
//! thread expects them (`expect_tx`), as the ISA allows. Waits name a phase by its parity
//! (`try_wait.parity`) or by the state token an arrive returned (the phase it arrived in).
//!
//! Invariants: `pending` is between 0 and `expected` after every operation that succeeds; an
//! arrival beyond the count is an error, not a wrap; phases only grow.

/// One mbarrier object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Mbarrier {
    /// Arrivals each phase expects (`mbarrier.init`'s count).
    pub expected: u32,
    /// Arrivals the current phase still expects.
    pub pending: u32,
    /// Transaction bytes expected and not yet completed in the current phase.
    pub tx: i64,
    /// Phases completed so far (the current phase's number).
    pub phase: u32,
}

/// Why an mbarrier operation is a fault of the program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum MbarrierError {
    #[error("{count} arrivals on an mbarrier whose phase {phase} expects {pending} more")]
    TooManyArrivals { count: u32, pending: u32, phase: u32 },
    #[error("an mbarrier count of {0} (1 to 2^20 - 1)")]
    BadCount(u64),
}

impl Mbarrier {
    /// `mbarrier.init` with `count` arrivals per phase.
    pub(super) fn new(count: u64) -> Result<Mbarrier, MbarrierError> {
        match u32::try_from(count) {
            Ok(c) if (1..1 << 20).contains(&c) => Ok(Mbarrier { expected: c, pending: c, tx: 0, phase: 0 }),
            _ => Err(MbarrierError::BadCount(count)),
        }
    }

    /// Completes the current phase if nothing more is expected of it; true when it did.
    fn settle(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.phase = self.phase.wrapping_add(1);
            self.pending = self.expected;
            return true;
        }
        false
    }

    /// `count` arrivals (after `tx` more transaction bytes are expected); returns the token of
    /// the phase arrived in.
    pub(super) fn arrive(&mut self, count: u32, tx: i64) -> Result<u32, MbarrierError> {
        if count > self.pending || count == 0 {
            return Err(MbarrierError::TooManyArrivals { count, pending: self.pending, phase: self.phase });
        }
        let token = self.phase;
        self.tx = self.tx.saturating_add(tx);
        self.pending -= count;
        self.settle();
        Ok(token)
    }

    /// `expect_tx` (positive) or `complete_tx` (negative) of `bytes`; true when the phase completed.
    pub(super) fn transact(&mut self, bytes: i64) -> bool {
        self.tx = self.tx.saturating_add(bytes);
        self.settle()
    }

    /// Whether the phase that a wait names has completed: for a parity, the current phase's
    /// parity differs (the last phase of that parity is done); for a token, a later phase began.
    pub(super) fn done(&self, parity_wait: bool, operand: u64) -> bool {
        if parity_wait {
            u64::from(self.phase & 1) != operand & 1
        } else {
            u64::from(self.phase) > operand
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_completes_when_arrivals_and_transactions_are_in() {
        let mut m = Mbarrier::new(2).unwrap();
        assert!(!m.done(true, 0), "phase 0 is in progress");
        assert!(m.done(true, 1), "a parity-1 wait on a new barrier returns at once (ISA)");
        assert_eq!(m.arrive(1, 64), Ok(0));
        assert_eq!(m.arrive(1, 0), Ok(0));
        assert_eq!((m.phase, m.tx), (0, 64), "bytes still expected");
        assert!(m.transact(-64));
        assert_eq!((m.phase, m.pending, m.tx), (1, 2, 0));
        assert!(m.done(true, 0) && m.done(false, 0) && !m.done(false, 1));
    }

    #[test]
    fn early_completions_and_extra_arrivals() {
        let mut m = Mbarrier::new(1).unwrap();
        assert!(!m.transact(-16), "a copy may complete before the bytes are expected");
        assert_eq!(m.arrive(1, 16), Ok(0));
        assert_eq!(m.phase, 1);
        assert!(matches!(m.arrive(2, 0), Err(MbarrierError::TooManyArrivals { .. })));
        assert!(Mbarrier::new(0).is_err() && Mbarrier::new(1 << 20).is_err());
    }
}
