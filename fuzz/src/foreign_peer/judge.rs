//! The judge of Triton's output: Triton's module is read back with `tirproof-foreign` and every
//! function verified with tightness ([`verify_func`]); the verdicts give the [`TritonClass`]
//! and the wait they are about gives the signature's site ([`WaitSite::key`] of the generated
//! program's wait at the same position).
//!
//! Invariant: an unsafe output is never blamed on Triton without saying whose the fault is,
//! in the message and in the site's last word: `count-against-tokens` (the refutation is of
//! the wait's claim: Triton's count leaves a group its own tokens name in flight, Triton's
//! fault), `input-unsafe` (the input with every `num` set to 0, each wait completing every
//! group committed before it, is refuted too: no count can make it safe), or
//! `tokens-miss-access` (safe with `num = 0`, but the access needs a group the tokens do not
//! name: Triton's count follows its input).

use std::fmt::Write as _;
use std::time::Duration;

use tirproof_foreign::{import, Dialect};
use tirproof_verify::waits::{verify_func, FuncReport, Options, WaitVerdict};

use super::class::{Signature, TritonClass};
use super::triton::{TritonError, TritonReply, TritonStage};
use super::ttgir_gen::WaitSite;

/// The verifier's options: tightness measured, short limits (a program that needs more is
/// `Unknown`, a skip).
pub fn options() -> Options {
    Options {
        timeout: Duration::from_secs(2),
        dump_smtlib: false,
        tightness: true,
        budget: Some(Duration::from_secs(20)),
    }
}

/// One program judged.
#[derive(Clone, Debug)]
pub struct Judged {
    pub signature: Signature,
    /// What happened, for the report.
    pub message: String,
    /// Triton's output, when it gave one.
    pub output: Option<String>,
    /// tirproof's verdicts on the output, as `tirproof verify` words them.
    pub verdicts: String,
    /// How many groups more than Triton's count the over-synchronized waits could leave in
    /// flight (the largest over the waits; `None`: the wait is not needed at all).
    pub over_by: Option<Option<i64>>,
}

impl Judged {
    fn without_output(class: TritonClass, message: String) -> Judged {
        Judged {
            signature: Signature { class, site: "program".into() },
            message,
            output: None,
            verdicts: String::new(),
            over_by: None,
        }
    }
}

/// Judges Triton's answer `reply` to the generated `input`, whose waits are at `sites`.
pub fn judge(input: &str, sites: &[WaitSite], reply: Result<TritonReply, TritonError>) -> Judged {
    let output = match reply {
        Ok(TritonReply::Printed(output)) => output,
        Ok(TritonReply::Refused { stage, kind, message }) => {
            let class = match stage {
                TritonStage::Parse => TritonClass::ParseRefused,
                TritonStage::Pass | TritonStage::Print => TritonClass::PassRaised { kind: word(&kind) },
            };
            return Judged::without_output(class, format!("Triton raised {kind} ({stage:?}): {}", message.trim()));
        }
        Err(error @ TritonError::Hung { .. }) => return Judged::without_output(TritonClass::Hung, error.to_string()),
        Err(error) => return Judged::without_output(TritonClass::Crashed, error.to_string()),
    };
    let module = match import(&output, Dialect::Ttgir) {
        Ok(module) => module,
        Err(diagnostics) => {
            let mut judged = Judged::without_output(
                TritonClass::OutputUnreadable,
                format!(
                    "tirproof's reader refuses Triton's output:\n{}",
                    diagnostics.render("triton_output.ttgir", &output)
                ),
            );
            judged.output = Some(output);
            return judged;
        }
    };
    let reports: Vec<FuncReport> = module.module.functions.iter().map(|f| verify_func(f, &options()).0).collect();
    let verdicts = render(&reports);
    // Triton merges back-to-back waits: positions name the generated waits only when none was.
    let output_waits = output.matches("ttg.async_wait").count();
    let site_of = |position: usize| -> String {
        if output_waits == sites.len() {
            sites.get(position).map_or_else(|| "unplaced-wait".into(), WaitSite::key)
        } else {
            "merged-waits".into()
        }
    };
    let waits = || reports.iter().flat_map(|r| &r.waits);
    let refuted = waits().find(|w| w.verdict.is_refuted());
    let left_in_flight = reports.iter().flat_map(|r| &r.findings).next();
    let undecided = waits()
        .any(|w| matches!(w.verdict, WaitVerdict::Unknown { .. } | WaitVerdict::ProvedBounded { .. }))
        || reports.iter().any(|r| !r.unknown.is_empty());
    let over: Vec<_> = waits()
        .filter_map(|w| match &w.verdict {
            WaitVerdict::ProvedOverSynchronized { by, .. } => Some((w.index.position(), *by)),
            _ => None,
        })
        .collect();
    let (class, site, mut message) = if let Some(wait) = refuted {
        let site = site_of(wait.index.position());
        (TritonClass::Unsafe, site, format!("tirproof refutes a wait of Triton's output: {wait}"))
    } else if let Some(finding) = left_in_flight {
        let message = format!("Triton's output: {} (line {})", finding.message, finding.line);
        (TritonClass::Unsafe, "end-of-function".to_string(), message)
    } else if undecided {
        (TritonClass::Unknown, "program".to_string(), "the verifier left Triton's output undecided".to_string())
    } else if let Some((position, _)) = over.first() {
        let message = "every wait of Triton's output is safe, and one waits for more groups than it needs";
        (TritonClass::OverSynchronized, site_of(*position), message.to_string())
    } else {
        (TritonClass::Agree, "program".to_string(), "every wait of Triton's output is safe and tight".to_string())
    };
    let mut site = site;
    let against_tokens =
        refuted.is_some_and(|w| matches!(&w.verdict, WaitVerdict::Refuted { reason, .. } if reason.contains("token")));
    if class == TritonClass::Unsafe {
        let (blame, why) = if against_tokens {
            (
                "count-against-tokens",
                "Triton's count leaves in flight a group the wait's own tokens name: its rule contradicts its input",
            )
        } else if unsafe_by_construction(input) {
            ("input-unsafe", "the generated program is itself unsafe by construction: with every `num` set to 0 (each wait completing every group committed before it) tirproof still refutes it, so no count Triton computes from these tokens can make it safe")
        } else {
            ("tokens-miss-access", "the count completes every group the wait's tokens name, but the access refuted needs a group they do not name: the generated tokens do not cover it (safe with `num = 0`), so Triton's count follows its input")
        };
        site = format!("{site}/{blame}");
        let _ = write!(message, "\n{why}");
    }
    let over_by = (class == TritonClass::OverSynchronized)
        .then(|| over.iter().map(|(_, by)| *by).max_by_key(|by| by.unwrap_or(i64::MAX)).unwrap_or(None));
    if let Some(by) = over_by {
        let by = by.map_or_else(|| "the wait is not needed at all".to_string(), |n| format!("{n} more groups"));
        let _ = write!(message, " (at most: {by})");
    }
    Judged { signature: Signature { class, site }, message, output: Some(output), verdicts, over_by }
}

/// Whether `input`, every wait's `num` set to 0, is still refuted (or undecidable to read).
fn unsafe_by_construction(input: &str) -> bool {
    let drained = set_nums_to_zero(input);
    let Ok(module) = import(&drained, Dialect::Ttgir) else { return false };
    module.module.functions.iter().any(|f| {
        let report = verify_func(f, &options()).0;
        !report.findings.is_empty() || report.waits.iter().any(|w| w.verdict.is_refuted())
    })
}

/// `input` with every `{num = K : i32}` written `{num = 0 : i32}`.
fn set_nums_to_zero(input: &str) -> String {
    input
        .lines()
        .map(|line| match (line.find("{num = "), line.contains("ttg.async_wait")) {
            (Some(at), true) => {
                let rest = &line[at + "{num = ".len()..];
                let digits = rest.chars().take_while(char::is_ascii_digit).count();
                format!("{}{{num = 0{}\n", &line[..at], &rest[digits..])
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// The verdicts as `tirproof verify` words them.
pub fn render(reports: &[FuncReport]) -> String {
    let mut out = String::new();
    for report in reports {
        let _ = writeln!(out, "function {}", report.name);
        for wait in &report.waits {
            let _ = writeln!(out, "  {wait}");
        }
        for finding in &report.findings {
            let _ = writeln!(out, "  line {}: {}", finding.line, finding.message);
        }
        for undecided in &report.unknown {
            let _ = writeln!(out, "  undecided: {undecided:?}");
        }
    }
    out
}

/// An exception's type as a key word: letters, digits and underscores.
fn word(text: &str) -> String {
    let word: String = text.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if word.is_empty() {
        "Exception".into()
    } else {
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foreign_peer::ttgir_gen::Program;

    #[test]
    fn nums_are_set_to_zero_on_waits_only() {
        let text = "%w = ttg.async_wait %t {num = 12 : i32}\n%x = other {num = 3 : i32}\n";
        assert_eq!(set_nums_to_zero(text), "%w = ttg.async_wait %t {num = 0 : i32}\n%x = other {num = 3 : i32}\n");
    }

    #[test]
    fn refusals_crashes_and_hangs_are_classed_without_output() {
        let refused = |stage| Ok(TritonReply::Refused { stage, kind: "Runtime Error".into(), message: "x".into() });
        assert_eq!(judge("", &[], refused(TritonStage::Parse)).signature.class, TritonClass::ParseRefused);
        assert_eq!(
            judge("", &[], refused(TritonStage::Pass)).signature.class,
            TritonClass::PassRaised { kind: "RuntimeError".into() }
        );
        let hung = Err(TritonError::Hung { limit: Duration::from_secs(1) });
        assert_eq!(judge("", &[], hung).signature.class, TritonClass::Hung);
        let crashed = Err(TritonError::Crashed { status: "signal 11".into(), stderr: String::new() });
        assert_eq!(judge("", &[], crashed).signature.class, TritonClass::Crashed);
    }

    #[test]
    fn output_tirproof_cannot_read_is_its_own_class() {
        let judged = judge("", &[], Ok(TritonReply::Printed("module {\n  tt.func @f( {\n}\n".into())));
        assert_eq!(judged.signature.class, TritonClass::OutputUnreadable);
        assert!(judged.output.is_some());
    }

    /// The generator's own counts, judged as if they were Triton's: a program whose counts are
    /// all exact with a drain is tight, and the same program with its in-loop wait raised past
    /// what is safe is unsafe (and not unsafe by construction).
    #[test]
    fn judging_tells_tight_from_unsafe_counts() {
        let text = |num: u8| {
            use crate::foreign_peer::ttgir_gen::{Copies, Group, Guard, LoopOp, Trip, WaitOn};
            let group = Group { copies: Copies::One, committed: true };
            Program {
                slots: 3,
                prologue: vec![group, group],
                trip: Trip::Const(4),
                body: vec![
                    LoopOp::Wait { on: WaitOn::Oldest, num },
                    LoopOp::Load,
                    LoopOp::Issue { group, guard: Guard::Always },
                ],
                carried_out: None,
                drain: true,
                epilogue_load: false,
            }
        };
        let exact = text(1);
        let judged = judge(&exact.print(), &exact.wait_sites(), Ok(TritonReply::Printed(exact.print())));
        assert_eq!(judged.signature.class, TritonClass::Agree, "{}\n{}", judged.message, judged.verdicts);
        let raised = text(2);
        let judged = judge(&raised.print(), &raised.wait_sites(), Ok(TritonReply::Printed(raised.print())));
        assert_eq!(judged.signature.class, TritonClass::Unsafe, "{}\n{}", judged.message, judged.verdicts);
        assert_eq!(judged.signature.site, "in-loop/group-token/count-against-tokens", "{}", judged.message);
    }
}
