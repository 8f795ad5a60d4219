//! Completion schedules: when committed asynchronous groups land in memory.
//!
//! The contract (docs/async-semantics.md) lets a group complete at any moment between its
//! commit and the wait that retires it. An executor asks `Completion` at the two moments
//! that matter: at a commit (`lands_at_commit`) and before each step (`maybe_complete`).
//! `lazy` never lands early, so a missing wait faults deterministically; `eager` lands at
//! commit; `random(seed)` lands the oldest incomplete group of a random queue with
//! probability 1/2 before a step. Completion is FIFO per queue under every schedule.
//!
//! Invariant: the random stream depends only on the seed and on the sequence of calls, so a
//! run is reproduced exactly by running it again.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::async_queue::AsyncState;
use crate::memory::Memory;

/// When committed async groups complete (land in memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// Adversarial: a group completes only when a wait forces it.
    #[default]
    Lazy,
    /// At commit.
    Eager,
    /// At seeded random moments after commit (before statements), FIFO per queue.
    Random(u64),
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Lazy => f.write_str("lazy"),
            Schedule::Eager => f.write_str("eager"),
            Schedule::Random(seed) => write!(f, "random:{seed}"),
        }
    }
}

/// Why a schedule name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown schedule `{0}` (expected lazy, eager or random:SEED)")]
pub struct ParseScheduleError(pub String);

impl FromStr for Schedule {
    type Err = ParseScheduleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "lazy" => Ok(Schedule::Lazy),
            "eager" => Ok(Schedule::Eager),
            _ => text
                .strip_prefix("random:")
                .and_then(|seed| seed.parse().ok())
                .map(Schedule::Random)
                .ok_or_else(|| ParseScheduleError(text.to_string())),
        }
    }
}

/// A schedule with the random stream it draws from.
#[derive(Debug)]
pub struct Completion {
    schedule: Schedule,
    rng: ChaCha8Rng,
}

impl Completion {
    pub fn new(schedule: Schedule) -> Completion {
        let seed = match schedule {
            Schedule::Random(seed) => seed,
            Schedule::Lazy | Schedule::Eager => 0,
        };
        Completion { schedule, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Whether a group lands the moment it is committed.
    pub fn lands_at_commit(&self) -> bool {
        self.schedule == Schedule::Eager
    }

    /// Whether groups may land between steps (the executor then calls `maybe_complete`).
    pub fn lands_between_steps(&self) -> bool {
        matches!(self.schedule, Schedule::Random(_))
    }

    /// Under the random schedule: with probability 1/2, lands the oldest incomplete group of a
    /// random queue of one thread; returns its queue and sequence number.
    pub fn maybe_complete(&mut self, asyncs: &mut AsyncState, mem: &mut Memory) -> Option<(i64, u32)> {
        if !self.lands_between_steps() || !self.rng.gen_bool(0.5) {
            return None;
        }
        asyncs.complete_random(mem, &mut self.rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_names_round_trip() {
        for s in [Schedule::Lazy, Schedule::Eager, Schedule::Random(42)] {
            assert_eq!(s.to_string().parse::<Schedule>(), Ok(s));
        }
        assert!("random:".parse::<Schedule>().is_err());
        assert!("fast".parse::<Schedule>().is_err());
    }

    #[test]
    fn only_eager_lands_at_commit_and_only_random_between_steps() {
        assert!(Completion::new(Schedule::Eager).lands_at_commit());
        assert!(!Completion::new(Schedule::Lazy).lands_at_commit());
        assert!(!Completion::new(Schedule::Lazy).lands_between_steps());
        assert!(Completion::new(Schedule::Random(3)).lands_between_steps());
    }
}
