//! The result of validating a CSE run: one verdict per rewritten expression and per inserted
//! binding, and the reasons anything could not be checked.
//!
//! Invariant: a report is proved only when every obligation is `Verdict::Proved`; an unknown,
//! vacuous or refuted verdict, or a structural difference, fails it.

use std::fmt;

use crate::solver::Verdict;

/// What an obligation is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObligationKind {
    /// A rewritten expression equals the original one (value and faults).
    Rewrite,
    /// A binding CSE inserted cannot fault unless the original statement after it does.
    Binding,
    /// The two programs differ in something CSE never changes (a statement kind, a buffer, a
    /// loop kind, ...): nothing can be proved.
    Structure,
}

impl fmt::Display for ObligationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ObligationKind::Rewrite => "rewrite",
            ObligationKind::Binding => "binding",
            ObligationKind::Structure => "structure",
        })
    }
}

/// One proof obligation and its verdict.
#[derive(Clone, Debug)]
pub struct Obligation {
    pub kind: ObligationKind,
    /// Where, e.g. `body.seq[1].store.value`.
    pub path: String,
    /// The original side (an expression, or the statement after a binding), printed.
    pub original: String,
    /// The rewritten side, printed.
    pub rewritten: String,
    pub verdict: Verdict,
}

/// The validation of one function.
#[derive(Clone, Debug, Default)]
pub struct ValidationReport {
    pub function: String,
    pub obligations: Vec<Obligation>,
    /// Expressions left as they were (nothing to prove).
    pub unchanged: usize,
}

impl ValidationReport {
    /// Whether every obligation is proved.
    #[must_use]
    pub fn is_proved(&self) -> bool {
        self.obligations.iter().all(|o| o.verdict.is_proved())
    }

    /// The obligations that are not proved.
    pub fn failures(&self) -> impl Iterator<Item = &Obligation> {
        self.obligations.iter().filter(|o| !o.verdict.is_proved())
    }
}

impl fmt::Display for Obligation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} at {}: {}", self.kind, self.path, self.verdict)?;
        writeln!(f, "    original:  {}", self.original)?;
        write!(f, "    rewritten: {}", self.rewritten)
    }
}

impl fmt::Display for ValidationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let proved = self.obligations.iter().filter(|o| o.verdict.is_proved()).count();
        writeln!(
            f,
            "`{}`: {proved} of {} obligations proved ({} expressions unchanged)",
            self.function,
            self.obligations.len(),
            self.unchanged
        )?;
        for o in self.failures() {
            writeln!(f, "{o}")?;
        }
        Ok(())
    }
}
