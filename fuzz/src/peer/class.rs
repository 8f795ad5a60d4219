//! What TVM did wrong with one program: the closed [`TvmClass`], part of a failure's class, so
//! that campaigns deduplicate TVM's bugs by root cause rather than by text.
//!
//! Among the oracles' failure classes it is the `tvm` peer's opaque key
//! ([`FailureClass::Peer`], spelled `tvm:KEY`): [`TvmClass::failure_class`] builds it and
//! [`TvmClass::of_failure_class`] reads it back.
//!
//! A class carries no values and no line numbers. A raised exception is classed by its Python
//! type and the C++ source line TVM raised it at (the check that failed), or, when the
//! traceback names none, by its message with numbers and quoted names blanked: two programs
//! that trip the same `ICHECK` are one root cause whatever their shapes. Keys parse back
//! ([`TvmClass::parse_key`]).

use std::fmt;

use tirproof_interp::FaultKind;

use super::worker::{TvmRefusal, TvmStage};
use crate::oracle::{FailureClass, OracleName, PeerClass};

/// How TVM failed on a program (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TvmClass {
    /// TVM's parser refused the S-TIR text printed for it.
    ParseRefused { exception: String },
    /// The pass (or the lowering after it) raised `exception` at `at`: a C++ source line, or
    /// the blanked message.
    PassRaised { exception: String, at: String },
    /// TVM could not print its own result.
    PrintRaised { exception: String },
    /// TVM's process died.
    Crashed,
    /// TVM did not answer within the time limit.
    Hung,
    /// tirproof cannot read what TVM printed.
    OutputUnreadable,
    /// Under the lazy schedule TVM's output touches data still in flight, or races between
    /// threads (the interpreter's fault kind).
    Racy { kind: FaultKind },
    /// Z3 refutes a wait of TVM's output that the interpreter's runs did not expose.
    RacyProved,
    /// TVM's output executes a wait with a negative count.
    NegativeCount,
    /// TVM's output leaves an async group unwaited at its end.
    UnwaitedGroup,
    /// TVM's output computes something else, with no async fault.
    WrongResult,
    /// TVM's output faults otherwise (out of bounds, say).
    Fault { kind: FaultKind },
    /// Every wait of TVM's output is safe, but one waits for more than it needs.
    OverSynchronized,
}

impl TvmClass {
    /// The class of an exception TVM raised.
    pub fn of_refusal(refusal: &TvmRefusal) -> TvmClass {
        let exception = word(&refusal.kind);
        match refusal.stage {
            TvmStage::Parse => TvmClass::ParseRefused { exception },
            TvmStage::Print => TvmClass::PrintRaised { exception },
            TvmStage::Pass => {
                let at = refusal.location.clone().unwrap_or_else(|| blank(&refusal.message));
                TvmClass::PassRaised { exception, at }
            }
        }
    }

    /// The class of a fault of TVM's output under the interpreter.
    pub fn of_fault(kind: FaultKind) -> TvmClass {
        match kind {
            FaultKind::ReadPendingAsync
            | FaultKind::WritePendingAsync
            | FaultKind::CrossThreadRace
            | FaultKind::CrossBlockRace => TvmClass::Racy { kind },
            FaultKind::NegativeWait => TvmClass::NegativeCount,
            FaultKind::UnwaitedGroup => TvmClass::UnwaitedGroup,
            kind => TvmClass::Fault { kind },
        }
    }

    /// Whether TVM's output was judged (as opposed to TVM failing to give one).
    pub fn judges_output(&self) -> bool {
        !matches!(
            self,
            TvmClass::ParseRefused { .. }
                | TvmClass::PassRaised { .. }
                | TvmClass::PrintRaised { .. }
                | TvmClass::Crashed
                | TvmClass::Hung
                | TvmClass::OutputUnreadable
        )
    }

    /// The key after `tvm:` (`racy:read-pending-async`, `pass-raised:InternalError@file.cc:842`).
    pub fn key(&self) -> String {
        match self {
            TvmClass::ParseRefused { exception } => format!("parse-refused:{exception}"),
            TvmClass::PassRaised { exception, at } => format!("pass-raised:{exception}@{at}"),
            TvmClass::PrintRaised { exception } => format!("print-raised:{exception}"),
            TvmClass::Crashed => "crashed".into(),
            TvmClass::Hung => "hung".into(),
            TvmClass::OutputUnreadable => "output-unreadable".into(),
            TvmClass::Racy { kind } => format!("racy:{kind}"),
            TvmClass::RacyProved => "racy:proved".into(),
            TvmClass::NegativeCount => "negative-count".into(),
            TvmClass::UnwaitedGroup => "unwaited-group".into(),
            TvmClass::WrongResult => "wrong-result".into(),
            TvmClass::Fault { kind } => format!("fault:{kind}"),
            TvmClass::OverSynchronized => "over-synchronized".into(),
        }
    }

    /// The failure class of the `tvm` oracle that this class is.
    pub fn failure_class(&self) -> FailureClass {
        FailureClass::Peer { peer: OracleName::Tvm, class: PeerClass::new(self.key()) }
    }

    /// TVM's class of a failure of the `tvm` oracle; `None` for any other class.
    pub fn of_failure_class(class: &FailureClass) -> Option<TvmClass> {
        match class {
            FailureClass::Peer { peer: OracleName::Tvm, class } => TvmClass::parse_key(class.key()),
            _ => None,
        }
    }

    /// The class whose [`key`](TvmClass::key) is `key`.
    pub fn parse_key(key: &str) -> Option<TvmClass> {
        let fault = |name: &str| FaultKind::ALL.into_iter().find(|k| k.name() == name);
        if let Some(exception) = key.strip_prefix("parse-refused:") {
            return Some(TvmClass::ParseRefused { exception: exception.to_string() });
        }
        if let Some(rest) = key.strip_prefix("pass-raised:") {
            let (exception, at) = rest.split_once('@')?;
            return Some(TvmClass::PassRaised { exception: exception.to_string(), at: at.to_string() });
        }
        if let Some(exception) = key.strip_prefix("print-raised:") {
            return Some(TvmClass::PrintRaised { exception: exception.to_string() });
        }
        if key == "racy:proved" {
            return Some(TvmClass::RacyProved);
        }
        if let Some(kind) = key.strip_prefix("racy:") {
            return fault(kind).map(|kind| TvmClass::Racy { kind });
        }
        if let Some(kind) = key.strip_prefix("fault:") {
            return fault(kind).map(|kind| TvmClass::Fault { kind });
        }
        [
            TvmClass::Crashed,
            TvmClass::Hung,
            TvmClass::OutputUnreadable,
            TvmClass::NegativeCount,
            TvmClass::UnwaitedGroup,
            TvmClass::WrongResult,
            TvmClass::OverSynchronized,
        ]
        .into_iter()
        .find(|class| class.key() == key)
    }
}

impl fmt::Display for TvmClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// An identifier as a key word: letters, digits and underscores only.
fn word(text: &str) -> String {
    let word: String = text.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if word.is_empty() {
        "Exception".into()
    } else {
        word
    }
}

/// The first line of an exception's message with what varies between programs blanked:
/// numbers become `N`, quoted and backquoted names `_`, and anything but letters, digits and
/// `_` a single `-`; at most 80 characters.
fn blank(message: &str) -> String {
    let line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut out = String::new();
    let mut quote = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '"' | '\'' | '`') => {
                quote = Some(c);
                out.push('_');
            }
            None if c.is_ascii_digit() => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            None if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            None => {
                if !out.ends_with('-') {
                    out.push('-');
                }
            }
        }
        if out.len() >= 80 {
            break;
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "no-message".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses_back() {
        let mut classes = vec![
            TvmClass::ParseRefused { exception: "DiagnosticError".into() },
            TvmClass::PassRaised {
                exception: "InternalError".into(),
                at: "s_tir/transform/inject_software_pipeline.cc:842".into(),
            },
            TvmClass::PrintRaised { exception: "ValueError".into() },
            TvmClass::Crashed,
            TvmClass::Hung,
            TvmClass::OutputUnreadable,
            TvmClass::RacyProved,
            TvmClass::NegativeCount,
            TvmClass::UnwaitedGroup,
            TvmClass::WrongResult,
            TvmClass::OverSynchronized,
        ];
        classes.extend(FaultKind::ALL.map(TvmClass::of_fault));
        for class in classes {
            assert_eq!(TvmClass::parse_key(&class.key()), Some(class.clone()), "{class}");
            let failure_class = class.failure_class();
            assert_eq!(failure_class.key(), format!("tvm:{}", class.key()));
            assert_eq!(failure_class.key().parse::<FailureClass>().as_ref(), Ok(&failure_class));
            assert_eq!(TvmClass::of_failure_class(&failure_class), Some(class.clone()), "{class}");
        }
        assert_eq!(TvmClass::of_failure_class(&FailureClass::WaitRefuted), None);
        assert_eq!(TvmClass::parse_key("racy:no-such-fault"), None);
        assert_eq!(TvmClass::parse_key("pass-raised:no-location"), None);
    }

    #[test]
    fn exceptions_are_classed_by_where_they_were_raised_not_by_their_text() {
        let refusal = |message: &str, location: Option<&str>| TvmRefusal {
            stage: TvmStage::Pass,
            kind: "InternalError".into(),
            message: message.into(),
            location: location.map(str::to_string),
        };
        let at = Some("s_tir/transform/inject_software_pipeline.cc:842");
        let one = TvmClass::of_refusal(&refusal("Check failed: predicate of B_1 (i < 3)", at));
        let other = TvmClass::of_refusal(&refusal("Check failed: predicate of A_shared (i < 97)", at));
        assert_eq!(one, other);
        // Without a location, the message with its names and numbers blanked.
        let one = TvmClass::of_refusal(&refusal("Buffer `A_1` has 3 dimensions, expected 1", None));
        let other = TvmClass::of_refusal(&refusal("Buffer `S0` has 12 dimensions, expected 2", None));
        assert_eq!(one, other);
        assert_eq!(one.key(), "pass-raised:InternalError@Buffer-_-has-N-dimensions-expected-N");
        let third = TvmClass::of_refusal(&refusal("Buffer `A_1` has no scope", None));
        assert_ne!(one, third);
    }
}
