//! What the wait verifier says: a verdict per wait and the other findings of a function.

use std::fmt;

use serde::Serialize;

/// The verdict on one wait.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum WaitVerdict {
    /// Safe, and one more group in flight would not be.
    ProvedTight,
    /// Safe; how tight was not measured (`Options::tightness` off).
    Proved,
    /// Safe, but `best` groups in flight would be safe too (`None`: the wait is not needed at
    /// all, any count is safe).
    ProvedOverSynchronized { best: Option<String>, by: Option<i64> },
    /// A counterexample: the reason and the values of the variables.
    Refuted { reason: String, values: Vec<(String, i64)> },
    /// Z3 gave no answer in time, or the program has a construct without an exact encoding.
    Unknown { reason: String },
}

impl WaitVerdict {
    pub fn is_proved(&self) -> bool {
        matches!(self, WaitVerdict::ProvedTight | WaitVerdict::Proved | WaitVerdict::ProvedOverSynchronized { .. })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct WaitReport {
    /// The wait's position among the function's wait statements, in program order (from 0):
    /// names a wait where lines do not (IR built in memory has none).
    pub index: usize,
    pub line: u32,
    pub queue: i64,
    /// The in-flight count as written.
    pub count: String,
    #[serde(flatten)]
    pub verdict: WaitVerdict,
}

/// A problem that is not about one wait: a use no wait protects, a group never waited.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub line: u32,
    pub message: String,
    pub values: Vec<(String, i64)>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FuncReport {
    pub name: String,
    pub waits: Vec<WaitReport>,
    /// Refuted obligations that no single wait is responsible for.
    pub findings: Vec<Finding>,
    /// Obligations that could not be decided (`Unknown` is never a pass).
    pub unknown: Vec<String>,
    /// What was and was not checked.
    pub notes: Vec<String>,
    pub queries: usize,
}

impl FuncReport {
    /// Everything proved: every wait, no findings, nothing unknown.
    pub fn all_proved(&self) -> bool {
        self.findings.is_empty() && self.unknown.is_empty() && self.waits.iter().all(|w| w.verdict.is_proved())
    }

    pub fn count(&self, pred: impl Fn(&WaitVerdict) -> bool) -> usize {
        self.waits.iter().filter(|w| pred(&w.verdict)).count()
    }
}

impl fmt::Display for WaitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = format!("wait at line {} (queue {}, in-flight {})", self.line, self.queue, self.count);
        match &self.verdict {
            WaitVerdict::ProvedTight => write!(f, "{head}: proved and tight"),
            WaitVerdict::Proved => write!(f, "{head}: proved (tightness not measured)"),
            WaitVerdict::ProvedOverSynchronized { best: Some(b), by } => {
                write!(f, "{head}: proved but over-synchronized by {}; {b} is safe", by.unwrap_or(0))
            }
            WaitVerdict::ProvedOverSynchronized { best: None, .. } => {
                write!(f, "{head}: proved but not needed (any in-flight count is safe)")
            }
            WaitVerdict::Refuted { reason, .. } => write!(f, "{head}: refuted: {reason}"),
            WaitVerdict::Unknown { reason } => write!(f, "{head}: unknown: {reason}"),
        }
    }
}
