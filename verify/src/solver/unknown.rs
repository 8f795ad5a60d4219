//! Why a check was left undecided: a closed set of reasons, so that callers tell a spent time
//! budget from a check's own time limit or from Z3 giving up by matching, not by reading text.
//!
//! Invariant: `Display` is the text reports have always carried (a budget's reason starts with
//! [`BUDGET_SPENT`]), so reports, JSON and the fuzzers' skips read as before.

use std::fmt;
use std::time::Duration;

use super::budget::BUDGET_SPENT;
use super::ObligationId;

/// Why the solver did not decide a check. Never a pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownReason {
    /// The check ran out of its own time limit.
    TimeLimit { query: String, limit: Duration },
    /// The time budget of the run stopped the check before its own limit (see
    /// [`within_budget`](super::within_budget)).
    BudgetSpent { query: String },
    /// Z3 gave up for a reason of its own (incompleteness, a resource limit), as Z3 words it.
    GaveUp(String),
    /// Z3 found a counterexample but returned no model.
    NoModel,
    /// Z3 found a counterexample with a value that does not fit in an i64.
    ValueOutOfRange { variable: String },
    /// The obligations follow from the assumptions, but whether the assumptions can hold was
    /// not decided, for this reason.
    AssumptionsUndecided(Box<UnknownReason>),
    /// A scope was asked about an obligation its query does not have.
    NoSuchObligation { query: String, obligation: ObligationId },
    /// The obligation never reached the solver: why (a construct the caller cannot encode,
    /// programs that do not match).
    NotAsked(String),
    /// A counterexample of an encoding that is exact only where the counterexample can be
    /// confirmed, and this one could not be: why.
    Unconfirmed(String),
}

impl UnknownReason {
    /// Whether the run's time budget, rather than the check itself, left it undecided.
    #[must_use]
    pub fn is_budget_spent(&self) -> bool {
        match self {
            UnknownReason::BudgetSpent { .. } => true,
            UnknownReason::AssumptionsUndecided(inner) => inner.is_budget_spent(),
            _ => false,
        }
    }
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::TimeLimit { query, limit } => {
                write!(f, "timeout: a check of query `{query}` ran out of its {limit:?}")
            }
            UnknownReason::BudgetSpent { query } => write!(f, "{BUDGET_SPENT}: a check of query `{query}` was stopped"),
            UnknownReason::GaveUp(why) | UnknownReason::NotAsked(why) => f.write_str(why),
            UnknownReason::NoModel => f.write_str("Z3 found a counterexample but returned no model"),
            UnknownReason::ValueOutOfRange { variable } => {
                write!(f, "Z3 found a counterexample, but the value of `{variable}` does not fit in an i64")
            }
            UnknownReason::AssumptionsUndecided(why) => write!(
                f,
                "the obligations follow from the assumptions, but whether the assumptions can hold is unknown: {why}"
            ),
            UnknownReason::NoSuchObligation { query, obligation } => write!(f, "query `{query}` has no {obligation}"),
            UnknownReason::Unconfirmed(why) => write!(f, "a counterexample that could not be confirmed: {why}"),
        }
    }
}
