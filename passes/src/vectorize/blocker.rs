//! Why a `T.vectorized` loop stays serial: one variant per obstacle, each with the sentence
//! `--explain` prints after "stays serial: ".
//!
//! Invariant: a blocker names the construct (buffer, variable, call, attribute key) it is
//! about, so the note can be acted on without reading the pass.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// The extent is not an integer constant.
    NonConstantExtent(String),
    /// Extent times element lanes does not fit a vector type.
    TooManyLanes { extent: i64 },
    /// A loop nested in the body.
    NestedLoop(String),
    /// An `if` whose condition depends on the loop variable.
    VaryingIf,
    /// `T.if_then_else` (lazy) whose condition depends on the loop variable.
    VaryingLazySelect,
    /// A call that is not a pure intrinsic.
    Call { name: String, why: String },
    /// A commit or wait attribute (or another attribute whose value varies) in the body.
    Attr(String),
    /// A value whose lanes cannot be widened to match the others.
    Lanes(String),
    /// The loop variable in an index other than the last.
    NonLastIndex { buffer: String, dim: usize },
    /// A store whose index does not depend on the loop variable.
    InvariantStore(String),
    /// A written buffer whose accesses are not provably one element per iteration.
    Dependence { buffer: String, why: String },
    /// A vector expression (Ramp, Broadcast) built from the loop variable.
    NestedVector,
    /// A statement the vectorizer does not handle.
    Statement(&'static str),
}

impl fmt::Display for Blocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocker::NonConstantExtent(e) => write!(f, "its extent `{e}` is not a constant"),
            Blocker::TooManyLanes { extent } => write!(f, "{extent} lanes do not fit a vector type"),
            Blocker::NestedLoop(var) => write!(f, "its body contains the loop `{var}`"),
            Blocker::VaryingIf => f.write_str("an `if` condition depends on the loop variable"),
            Blocker::VaryingLazySelect => {
                f.write_str("a `T.if_then_else` condition depends on the loop variable (only the taken arm may run)")
            }
            Blocker::Call { name, why } => write!(f, "the call to `{name}` cannot be vectorized ({why})"),
            Blocker::Attr(key) => {
                write!(f, "its body contains the attribute `{key}`, which must run once per iteration")
            }
            Blocker::Lanes(why) => write!(f, "lanes would not match: {why}"),
            Blocker::NonLastIndex { buffer, dim } => {
                write!(f, "index {dim} of `{buffer}` depends on the loop variable; only the last index may be a vector")
            }
            Blocker::InvariantStore(buffer) => {
                write!(f, "the store to `{buffer}` has an index that does not depend on the loop variable")
            }
            Blocker::Dependence { buffer, why } => write!(f, "`{buffer}` is written in the loop and {why}"),
            Blocker::NestedVector => f.write_str("a vector expression in the body depends on the loop variable"),
            Blocker::Statement(what) => write!(f, "its body contains {what}"),
        }
    }
}
