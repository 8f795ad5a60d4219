//! The peers' [`Auditor`]s: [`TritonAuditor`] (generated TTGIR through Triton's worker, judged
//! by [`super::judge`]) and [`MlirAuditor`] (generated nvgpu copy loops through mlir-opt's
//! pipeliner, judged by `crate::mlir_peer`), with the files of their findings, whose
//! `report.md` is written by one function ([`report`]).
//!
//! Invariant: a finding's report names the peer's version, says what happened, and gives the
//! commands that show it with the peer alone and tirproof's verdict on the peer's output.

use std::fmt::{self, Write as _};

use super::campaign::Finding;
use super::class::Signature;
use super::judge::{self, Judged};
use super::ttgir_gen::Program;
use super::{
    common_row_words, triton, Audited, Auditor, ForeignPeer, NotAudited, PeerClass, PeerSignature, REQUEST_LIMIT,
};
use crate::mlir_peer::{self, Case, DedupKey, MlirClass, MlirOpt, MlirOutcome, Skip};

/// Triton 3.9's wait-count rule on generated TTGIR.
pub struct TritonAuditor {
    triton: triton::Triton,
}

impl TritonAuditor {
    /// Triton's worker started, or why it cannot run here (a skip).
    pub fn start() -> Result<TritonAuditor, String> {
        let started = triton::find_python().and_then(triton::Triton::start);
        started.map(|triton| TritonAuditor { triton }).map_err(|e| e.to_string())
    }
}

impl Auditor for TritonAuditor {
    type Case = Program;
    type Signature = Signature;
    type Judged = Judged;
    const PEER: ForeignPeer = ForeignPeer::Triton;
    const FINDING_FILES: &'static [&'static str] = &["input.ttgir", "triton_output.ttgir", "report.md"];

    fn version(&self) -> &str {
        &self.triton.version
    }

    fn generate(seed: u64) -> Program {
        Program::generate(seed)
    }

    fn shrink_candidates(case: &Program) -> Vec<Program> {
        case.shrink_candidates()
    }

    fn audit(&mut self, program: &Program) -> Result<Audited<Self>, NotAudited> {
        let text = program.print();
        let reply = self.triton.waits(&text, REQUEST_LIMIT);
        let judged = judge::judge(&text, &program.wait_sites(), reply);
        Ok(Audited { case: program.clone(), text, signature: judged.signature.clone(), judged })
    }

    fn finding_files(finding: &Finding<Self>) -> Vec<(&'static str, String)> {
        let audited = &finding.minimized;
        let judged = &audited.judged;
        let reproduce = format!(
            "From the repository, with DIR this finding's directory:\n\n    {} scripts/triton_wait_pass.py DIR/input.ttgir\n\nand tirproof's verdicts on Triton's output:\n\n    tirproof verify DIR/triton_output.ttgir\n",
            triton::VENV_PYTHON
        );
        let text = report(&ReportParts {
            finding: FindingHeader::of::<Self>(finding),
            message: &judged.message,
            reproduce: &reproduce,
            verdicts: Some(judged.verdicts.as_str()).filter(|v| !v.is_empty()),
            input: &audited.text,
        });
        let mut files = vec![("input.ttgir", audited.text.clone()), ("report.md", text)];
        if let Some(output) = &judged.output {
            files.push(("triton_output.ttgir", output.clone()));
        }
        files
    }
}

/// MLIR's shared-memory copy pipeliner (mlir-opt 22) on generated nvgpu copy loops.
pub struct MlirAuditor {
    mlir: MlirOpt,
}

impl MlirAuditor {
    /// mlir-opt 22 found and checked, or why it cannot run here (a skip).
    pub fn start() -> Result<MlirAuditor, String> {
        MlirOpt::find().map(|mlir| MlirAuditor { mlir }).map_err(|e| e.to_string())
    }
}

impl Auditor for MlirAuditor {
    type Case = Case;
    type Signature = DedupKey;
    type Judged = MlirOutcome;
    const PEER: ForeignPeer = ForeignPeer::Mlir;
    const FINDING_FILES: &'static [&'static str] =
        &[mlir_peer::INPUT_FILE, mlir_peer::TRANSFORM_FILE, mlir_peer::OUTPUT_FILE, "report.md"];

    fn version(&self) -> &str {
        &self.mlir.version
    }

    fn generate(seed: u64) -> Case {
        mlir_peer::generate(seed)
    }

    fn shrink_candidates(case: &Case) -> Vec<Case> {
        mlir_peer::reduce::candidates(case)
    }

    fn audit(&mut self, case: &Case) -> Result<Audited<Self>, NotAudited> {
        match mlir_peer::check(case, &self.mlir) {
            Ok(outcome) => Ok(Audited {
                case: case.clone(),
                text: case.program.to_mlir(),
                signature: DedupKey::of(case, &outcome),
                judged: outcome,
            }),
            Err(Skip::InputNotSafe(not_safe)) => Err(NotAudited::InputNotSafe { why: not_safe.to_string() }),
            Err(Skip::Mlir(error)) => Err(NotAudited::PeerNotRun { why: error.to_string() }),
        }
    }

    fn finding_files(finding: &Finding<Self>) -> Vec<(&'static str, String)> {
        let audited = &finding.minimized;
        let outcome = &audited.judged;
        let options = audited.case.options;
        let reproduce = format!(
            "In this finding's directory, with mlir-opt {}:\n\n{}\nOr anywhere, from nothing:\n\n```sh\n{}```\n",
            mlir_peer::LLVM_MAJOR,
            indent(&mlir_peer::commands()),
            mlir_peer::reproduction(&audited.case.program, options)
        );
        let mut message = outcome.message.clone();
        if let Some(by) = outcome.over_by {
            let by = by.map_or_else(|| "the wait is not needed at all".to_string(), |n| format!("{n} more groups"));
            let _ = write!(message, " (at most: {by})");
        }
        let text = report(&ReportParts {
            finding: FindingHeader::of::<Self>(finding),
            message: &message,
            reproduce: &reproduce,
            verdicts: None,
            input: &audited.text,
        });
        let mut files = vec![
            (mlir_peer::INPUT_FILE, audited.text.clone()),
            (mlir_peer::TRANSFORM_FILE, options.transform_script()),
            ("report.md", text),
        ];
        if let Some(output) = &outcome.output {
            files.push((mlir_peer::OUTPUT_FILE, output.clone()));
        }
        files
    }
}

impl PeerClass for MlirClass {
    const ROWS: &'static [&'static str] = &[
        "agree",
        "over-synchronized",
        "unsafe",
        "groups-in-flight-at-end",
        "refused",
        "crashed",
        "hung",
        "output-unreadable",
        "unknown",
    ];

    fn row(&self) -> &'static str {
        match self {
            MlirClass::Refused { .. } => "refused",
            MlirClass::Crashed => "crashed",
            MlirClass::Hung => "hung",
            MlirClass::OutputUnreadable => "output-unreadable",
            MlirClass::Unsafe => "unsafe",
            MlirClass::GroupsInFlightAtEnd => "groups-in-flight-at-end",
            MlirClass::OverSynchronized => "over-synchronized",
            MlirClass::Agree => "agree",
            MlirClass::Unknown => "unknown",
        }
    }

    fn describe_row(row: &str) -> String {
        match row {
            "unsafe" => "unsafe (a wait refuted, or a race)".into(),
            "groups-in-flight-at-end" => "groups in flight at the end (copies unwaited when the function ends)".into(),
            "refused" => "refused (mlir-opt exited with a diagnostic)".into(),
            other => common_row_words(other).map_or_else(|| other.to_string(), str::to_string),
        }
    }

    fn is_finding(&self) -> bool {
        !matches!(self, MlirClass::Agree | MlirClass::Unknown)
    }

    fn is_tirproof_limitation(&self) -> bool {
        matches!(self, MlirClass::OutputUnreadable | MlirClass::Unknown)
    }
}

impl PeerSignature for DedupKey {
    type Class = MlirClass;

    fn class(&self) -> &MlirClass {
        &self.class
    }
}

/// What a report says of its finding before the peer's answer.
struct FindingHeader {
    peer: ForeignPeer,
    number: usize,
    signature: String,
    version: String,
    seed: u64,
    lines_before: usize,
    lines_after: usize,
}

impl FindingHeader {
    fn of<A: Auditor>(finding: &Finding<A>) -> FindingHeader {
        FindingHeader {
            peer: A::PEER,
            number: finding.number,
            signature: finding.signature.to_string(),
            version: finding.peer_version.clone(),
            seed: finding.seed,
            lines_before: finding.lines_before,
            lines_after: finding.minimized.text.lines().count(),
        }
    }
}

/// What one `report.md` holds.
struct ReportParts<'a> {
    finding: FindingHeader,
    message: &'a str,
    /// The section that reproduces the finding (Markdown).
    reproduce: &'a str,
    /// tirproof's verdicts on the peer's output, as `tirproof verify` words them.
    verdicts: Option<&'a str>,
    /// The minimized input.
    input: &'a str,
}

/// A finding's `report.md`.
fn report(parts: &ReportParts<'_>) -> String {
    let h = &parts.finding;
    let peer = h.peer;
    let mut out = format!("# {peer} finding {}: `{}`\n\n", h.number, h.signature);
    let _ = write!(
        out,
        "{peer} {}, program seed {}, minimized from {} to {} lines.\n\n",
        h.version, h.seed, h.lines_before, h.lines_after
    );
    let _ = write!(out, "## What happened\n\n{}\n\n", parts.message.trim());
    let _ = write!(out, "## Reproduce\n\n{}\n", parts.reproduce.trim_end());
    if let Some(verdicts) = parts.verdicts {
        let _ = write!(out, "\n## tirproof's verdicts on {peer}'s output\n\n```\n{verdicts}```\n");
    }
    let _ = write!(out, "\n## Input (minimized)\n\n```mlir\n{}```\n", parts.input);
    out
}

/// `text` as a Markdown code block by indentation.
fn indent(text: &str) -> String {
    text.lines().fold(String::new(), |mut out, line| {
        let _ = writeln!(out, "    {line}");
        out
    })
}

impl fmt::Debug for MlirAuditor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MlirAuditor({})", self.mlir.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foreign_peer::campaign::Finding;

    fn mlir_finding(class: MlirClass, output: Option<&str>) -> Finding<MlirAuditor> {
        let case = mlir_peer::generate(7);
        let outcome = MlirOutcome {
            class,
            message: "the wait at line 9 is refuted".into(),
            output: output.map(str::to_string),
            over_by: None,
        };
        let text = case.program.to_mlir();
        Finding {
            number: 3,
            signature: DedupKey::of(&case, &outcome),
            seed: 11,
            minimized: Audited {
                case,
                text,
                signature: DedupKey::of(&mlir_peer::generate(7), &outcome),
                judged: outcome,
            },
            lines_before: 40,
            peer_version: "Debian LLVM version 22.1.8".into(),
        }
    }

    #[test]
    fn an_mlir_finding_holds_its_input_script_output_and_the_commands() {
        let finding = mlir_finding(MlirClass::Unsafe, Some("module {\n}\n"));
        let files = MlirAuditor::finding_files(&finding);
        let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["input.mlir", "transform.mlir", "report.md", "mlir_output.mlir"]);
        assert!(names.iter().all(|name| MlirAuditor::FINDING_FILES.contains(name)));
        let report = &files[2].1;
        assert!(report.starts_with("# mlir finding 3: `mlir:unsafe depth="), "{report}");
        assert!(report.contains("program seed 11, minimized from 40 to"), "{report}");
        assert!(report.contains("the wait at line 9 is refuted"), "{report}");
        assert!(report.contains("    mlir-opt input.mlir --transform-preload-library=transform-library-paths=transform.mlir --transform-interpreter > mlir_output.mlir\n    tirproof verify mlir_output.mlir\n"), "{report}");
        assert!(report.contains(&finding.minimized.text), "{report}");
        assert_eq!(files[1].1, finding.minimized.case.options.transform_script());
        // A refusal printed nothing: no output file.
        let refused = mlir_finding(MlirClass::Refused { diagnostic: "x".into() }, None);
        assert_eq!(MlirAuditor::finding_files(&refused).len(), 3);
    }

    #[test]
    fn every_mlir_class_has_a_row_and_only_mlir_faults_are_findings() {
        let classes = [
            MlirClass::Refused { diagnostic: "d".into() },
            MlirClass::Crashed,
            MlirClass::Hung,
            MlirClass::OutputUnreadable,
            MlirClass::Unsafe,
            MlirClass::GroupsInFlightAtEnd,
            MlirClass::OverSynchronized,
            MlirClass::Agree,
            MlirClass::Unknown,
        ];
        for class in &classes {
            assert!(<MlirClass as PeerClass>::ROWS.contains(&PeerClass::row(class)), "{class}");
            assert!(class.key().starts_with(PeerClass::row(class)), "{class}");
        }
        assert!(!PeerClass::is_finding(&MlirClass::Agree) && !PeerClass::is_finding(&MlirClass::Unknown));
        assert!(PeerClass::is_finding(&MlirClass::GroupsInFlightAtEnd));
        assert!(MlirClass::OutputUnreadable.is_tirproof_limitation() && !MlirClass::Unsafe.is_tirproof_limitation());
        assert_eq!(MlirClass::describe_row("agree"), "agree (every wait safe and tight)");
    }
}
