//! The bounds on what one run may hold in flight at once, which no fuel counts: async stores
//! issued and not yet retired by a wait, and committed groups not yet retired, each over every
//! thread of the run (docs/limits.md lists them with the other bounds).
//!
//! Invariants: a bound is a property of the machine, not of the program, so going past one is
//! an executor error (`ExecError::LimitExceeded`, located at the statement or instruction that
//! went past it), never a `Fault`; each bound is far above what a real kernel holds (a GPU's
//! shared memory caps the copies one block has in flight at a few hundred thousand bytes, and
//! the blocks of a launch run one at a time here), so no well-formed pipeline reaches one.

use std::fmt;

/// The most async stores issued and not yet retired by a wait, over all threads of a run.
pub const MAX_ASYNC_STORES_IN_FLIGHT: usize = 1 << 20;

/// The most committed groups not yet retired by a wait, over all threads of a run (empty
/// groups count: each commit makes one).
pub const MAX_GROUPS_IN_FLIGHT: usize = 1 << 20;

/// A bound of the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// `MAX_ASYNC_STORES_IN_FLIGHT`.
    AsyncStoresInFlight,
    /// `MAX_GROUPS_IN_FLIGHT`.
    GroupsInFlight,
}

impl Limit {
    /// The bound's value.
    pub const fn max(self) -> usize {
        match self {
            Limit::AsyncStoresInFlight => MAX_ASYNC_STORES_IN_FLIGHT,
            Limit::GroupsInFlight => MAX_GROUPS_IN_FLIGHT,
        }
    }

    /// The constant that holds it, as messages and docs/limits.md name it.
    pub const fn name(self) -> &'static str {
        match self {
            Limit::AsyncStoresInFlight => "MAX_ASYNC_STORES_IN_FLIGHT",
            Limit::GroupsInFlight => "MAX_GROUPS_IN_FLIGHT",
        }
    }

    /// What it counts.
    fn counts(self) -> &'static str {
        match self {
            Limit::AsyncStoresInFlight => "async stores in flight (issued and not yet retired by a wait)",
            Limit::GroupsInFlight => "async groups in flight (committed and not yet retired by a wait)",
        }
    }
}

impl fmt::Display for Limit {
    /// `more than 1048576 async stores in flight (...) over all threads (the limit MAX_...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "more than {} {} over all threads (the limit {})", self.max(), self.counts(), self.name())
    }
}

/// What a run holds in flight, against the bounds: one per `Memory`, so every thread of the
/// run counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InFlight {
    pub stores: usize,
    pub groups: usize,
}

impl InFlight {
    /// Counts one more async store, or says which bound that would pass.
    pub fn add_store(&mut self) -> Result<(), Limit> {
        Self::add(&mut self.stores, Limit::AsyncStoresInFlight)
    }

    /// Counts one more group, or says which bound that would pass.
    pub fn add_group(&mut self) -> Result<(), Limit> {
        Self::add(&mut self.groups, Limit::GroupsInFlight)
    }

    /// Forgets a retired group and its `stores` stores.
    pub fn retire(&mut self, groups: usize, stores: usize) {
        self.groups = self.groups.saturating_sub(groups);
        self.stores = self.stores.saturating_sub(stores);
    }

    fn add(count: &mut usize, limit: Limit) -> Result<(), Limit> {
        if *count >= limit.max() {
            return Err(limit);
        }
        *count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_stop_at_the_bound_and_name_it() {
        let mut in_flight = InFlight { stores: MAX_ASYNC_STORES_IN_FLIGHT - 1, groups: MAX_GROUPS_IN_FLIGHT };
        assert_eq!(in_flight.add_store(), Ok(()));
        assert_eq!(in_flight.add_store(), Err(Limit::AsyncStoresInFlight));
        assert_eq!(in_flight.add_group(), Err(Limit::GroupsInFlight));
        in_flight.retire(1, 1);
        assert_eq!(in_flight.add_group(), Ok(()));
        assert!(Limit::GroupsInFlight.to_string().contains("MAX_GROUPS_IN_FLIGHT"));
    }
}
