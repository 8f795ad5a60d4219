//! Why a pass's search stopped before it had nothing left to find: the closed set of limits a
//! bounded search (the e-graph of `cse-semantic`) may hit, and the record of one function that
//! hit one.
//!
//! Invariant: a [`Limit`] is reported only when the search stopped because of it; a search
//! that ran to completion (saturated) reports none.

use std::fmt;
use std::time::Duration;

/// The limit a bounded search stopped at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The search ran its most iterations (the count it ran).
    Iterations(usize),
    /// The search grew to its most nodes (the count it had).
    Nodes(usize),
    /// The search ran out of time (how long it had run).
    Time(Duration),
    /// The search was stopped for another reason, in the search's own words.
    Other(String),
}

impl Limit {
    /// The limit egg's runner reports it stopped at; `None` when the e-graph saturated.
    pub fn of_egg(reason: &egg::StopReason) -> Option<Limit> {
        match reason {
            egg::StopReason::Saturated => None,
            egg::StopReason::IterationLimit(n) => Some(Limit::Iterations(*n)),
            egg::StopReason::NodeLimit(n) => Some(Limit::Nodes(*n)),
            egg::StopReason::TimeLimit(seconds) => Some(Limit::Time(Duration::from_secs_f64(*seconds))),
            egg::StopReason::Other(why) => Some(Limit::Other(why.clone())),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Iterations(n) => write!(f, "its iteration limit ({n} iterations)"),
            Limit::Nodes(n) => write!(f, "its node limit ({n} nodes)"),
            Limit::Time(t) => write!(f, "its time limit ({:.3} s)", t.as_secs_f64()),
            Limit::Other(why) => write!(f, "{why}"),
        }
    }
}

/// One function whose search a pass cut short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub function: String,
    pub limit: Limit,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: stopped at {}", self.function, self.limit)
    }
}
