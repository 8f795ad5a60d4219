//! What happened to one program given to a foreign compiler's wait-count rule: the closed
//! [`TritonClass`], with a key that names it in signatures, directory names and summaries.
//!
//! A class carries no values and no lines (how much a wait is over-synchronized is kept in the
//! finding, not in its class), so that findings deduplicate by kind and structure, not by
//! numbers. Keys parse back ([`TritonClass::parse_key`]).

use std::fmt;

use super::{common_row_words, PeerClass, PeerSignature};

/// The outcome of one program (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TritonClass {
    /// Triton's parser refused the generated TTGIR.
    ParseRefused,
    /// Triton's pass (or its printer) raised an exception of this Python type.
    PassRaised { kind: String },
    /// Triton's process died.
    Crashed,
    /// Triton did not answer within the time limit.
    Hung,
    /// tirproof's reader refuses Triton's output: a limitation of tirproof, not Triton's bug.
    OutputUnreadable,
    /// A wait of Triton's output is refuted, or groups are left in flight at the end.
    Unsafe,
    /// Every wait is safe, and one waits for more groups than it needs.
    OverSynchronized,
    /// Every wait is safe and tight.
    Agree,
    /// The verifier left a wait or an obligation undecided: a skip, counted.
    Unknown,
}

impl TritonClass {
    /// Every class without a payload, and `PassRaised` with an empty kind, in table order.
    pub const TABLE: [&'static str; 9] = [
        "agree",
        "over-synchronized",
        "unsafe",
        "parse-refused",
        "pass-raised",
        "crashed",
        "hung",
        "output-unreadable",
        "unknown",
    ];

    /// Every class but `PassRaised`.
    pub const WITHOUT_PAYLOAD: [TritonClass; 8] = [
        TritonClass::ParseRefused,
        TritonClass::Crashed,
        TritonClass::Hung,
        TritonClass::OutputUnreadable,
        TritonClass::Unsafe,
        TritonClass::OverSynchronized,
        TritonClass::Agree,
        TritonClass::Unknown,
    ];

    /// `over-synchronized`, `pass-raised:RuntimeError`.
    pub fn key(&self) -> String {
        match self {
            TritonClass::ParseRefused => "parse-refused".into(),
            TritonClass::PassRaised { kind } => format!("pass-raised:{kind}"),
            TritonClass::Crashed => "crashed".into(),
            TritonClass::Hung => "hung".into(),
            TritonClass::OutputUnreadable => "output-unreadable".into(),
            TritonClass::Unsafe => "unsafe".into(),
            TritonClass::OverSynchronized => "over-synchronized".into(),
            TritonClass::Agree => "agree".into(),
            TritonClass::Unknown => "unknown".into(),
        }
    }

    /// The key without its payload: the row of the summary table.
    pub fn row(&self) -> &'static str {
        match self {
            TritonClass::ParseRefused => "parse-refused",
            TritonClass::PassRaised { .. } => "pass-raised",
            TritonClass::Crashed => "crashed",
            TritonClass::Hung => "hung",
            TritonClass::OutputUnreadable => "output-unreadable",
            TritonClass::Unsafe => "unsafe",
            TritonClass::OverSynchronized => "over-synchronized",
            TritonClass::Agree => "agree",
            TritonClass::Unknown => "unknown",
        }
    }

    /// The class whose [`key`](TritonClass::key) is `key`.
    pub fn parse_key(key: &str) -> Option<TritonClass> {
        if let Some(kind) = key.strip_prefix("pass-raised:") {
            let word = !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            return word.then(|| TritonClass::PassRaised { kind: kind.to_string() });
        }
        TritonClass::WITHOUT_PAYLOAD.into_iter().find(|class| class.key() == key)
    }

    /// Whether a program of this class is a finding (kept, minimized, reported).
    pub fn is_finding(&self) -> bool {
        !matches!(self, TritonClass::Agree | TritonClass::Unknown)
    }

    /// Whether the class is about tirproof rather than Triton.
    pub fn is_tirproof_limitation(&self) -> bool {
        matches!(self, TritonClass::OutputUnreadable | TritonClass::Unknown)
    }
}

impl fmt::Display for TritonClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

impl PeerClass for TritonClass {
    const ROWS: &'static [&'static str] = &TritonClass::TABLE;

    fn row(&self) -> &'static str {
        TritonClass::row(self)
    }

    fn describe_row(row: &str) -> String {
        match row {
            "unsafe" => "unsafe (a wait refuted, or groups left in flight)".into(),
            other => common_row_words(other).map_or_else(|| other.to_string(), str::to_string),
        }
    }

    fn is_finding(&self) -> bool {
        TritonClass::is_finding(self)
    }

    fn is_tirproof_limitation(&self) -> bool {
        TritonClass::is_tirproof_limitation(self)
    }
}

/// A finding's identity: its class and the structure of the program around the wait it is
/// about (`unsafe @ in-loop/copy-token`). Two programs with one signature are one finding.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    pub class: TritonClass,
    pub site: String,
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} @ {}", self.class, self.site)
    }
}

impl PeerSignature for Signature {
    type Class = TritonClass;

    fn class(&self) -> &TritonClass {
        &self.class
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses_back_and_rows_are_in_the_table() {
        let mut classes = TritonClass::WITHOUT_PAYLOAD.to_vec();
        classes.push(TritonClass::PassRaised { kind: "RuntimeError".into() });
        for class in &classes {
            assert_eq!(TritonClass::parse_key(&class.key()).as_ref(), Some(class), "{class}");
            assert!(TritonClass::TABLE.contains(&class.row()), "{class}");
        }
        assert_eq!(TritonClass::parse_key("pass-raised:"), None);
        assert_eq!(TritonClass::parse_key("pass-raised:a b"), None);
        assert_eq!(TritonClass::parse_key("racy"), None);
    }

    #[test]
    fn only_outcomes_about_triton_or_its_output_are_findings() {
        assert!(!TritonClass::Agree.is_finding());
        assert!(!TritonClass::Unknown.is_finding());
        assert!(TritonClass::Unsafe.is_finding() && !TritonClass::Unsafe.is_tirproof_limitation());
        assert!(TritonClass::OutputUnreadable.is_finding() && TritonClass::OutputUnreadable.is_tirproof_limitation());
    }

    #[test]
    fn signatures_differ_by_class_and_by_site() {
        let sig = |class, site: &str| Signature { class, site: site.into() };
        let a = sig(TritonClass::Unsafe, "in-loop/copy-token");
        assert_eq!(a.to_string(), "unsafe @ in-loop/copy-token");
        assert_ne!(a, sig(TritonClass::OverSynchronized, "in-loop/copy-token"));
        assert_ne!(a, sig(TritonClass::Unsafe, "in-loop/group-token"));
    }
}
