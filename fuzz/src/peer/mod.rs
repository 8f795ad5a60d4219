//! TVM as a peer: the `tvm` oracle gives each pass input to TVM's own `InjectSoftwarePipeline`
//! (in [`PeerMode::Lowered`], also the lowering TVM runs after it, up to flattened buffers),
//! reads TVM's output back and judges it the way tirproof judges its own pass.
//!
//! The input is printed as S-TIR ([`s_tir::for_tvm`]) and sent to a long-lived TVM process
//! ([`worker`]). TVM's answer is classed ([`TvmClass`]): an exception (by type and the source
//! line that raised it), a crash or a hang (the process is restarted, the campaign goes on),
//! text tirproof cannot read, or an output. An output is run under the lazy, eager and a
//! random schedule against the original (the interpreter's faults say racy, negative count,
//! unwaited group; other outputs say wrong result), then every wait is verified with Z3 (a
//! refuted wait is racy even when no run showed it; a safe wait that is not the largest safe
//! count is over-synchronized), and the message compares TVM's waits with those of tirproof's
//! own pass. A TVM that is missing or of another version makes the oracle a skip with the
//! reason.
//!
//! Invariants: the oracle never panics outward and never blocks past its time limits; a
//! finding names TVM's version and carries what reproduces it in TVM ([`reproduction`]).

mod class;
pub mod process;
pub mod s_tir;
pub mod worker;

use std::fmt::Write as _;
use std::str::FromStr;
use std::time::Duration;

use tirproof_ir::print::{print_expr, print_module};
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{AnnValue, Expr, IRModule, Stmt, StmtKind};

pub use class::TvmClass;
pub use worker::{find_python, with_worker, PeerError, TvmOp, TvmRefusal, TvmReply, TvmStage, TVM_VERSION};

use crate::oracle::waits::Known;
use crate::oracle::{equivalence, parse_text, waits, Failure, FailureClass, OracleName, Outcome, Side, SkipReason};

/// How long TVM may take on one program (its passes take milliseconds on generated programs;
/// a program that keeps it busy longer is reported as a hang).
pub const REQUEST_LIMIT: Duration = Duration::from_secs(60);

/// Which of TVM's passes the peer runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PeerMode {
    /// `InjectSoftwarePipeline` alone.
    #[default]
    Pipeline,
    /// `InjectSoftwarePipeline`, `LowerOpaqueBlock` and `FlattenBuffer`.
    Lowered,
}

impl PeerMode {
    pub const ALL: [PeerMode; 2] = [PeerMode::Pipeline, PeerMode::Lowered];

    /// The spelling of `--peer`.
    pub fn name(self) -> &'static str {
        match self {
            PeerMode::Pipeline => "tvm",
            PeerMode::Lowered => "tvm-lower",
        }
    }

    fn op(self) -> TvmOp {
        match self {
            PeerMode::Pipeline => TvmOp::Pipeline,
            PeerMode::Lowered => TvmOp::Lower,
        }
    }

    /// The Python statements that run this mode's passes on `mod`.
    fn python_passes(self) -> &'static str {
        match self {
            PeerMode::Pipeline => "mod = tvm.s_tir.transform.InjectSoftwarePipeline()(mod)\n",
            PeerMode::Lowered => concat!(
                "mod = tvm.s_tir.transform.InjectSoftwarePipeline()(mod)\n",
                "mod = tvm.s_tir.transform.LowerOpaqueBlock()(mod)\n",
                "mod = tvm.tirx.transform.FlattenBuffer()(mod)\n",
            ),
        }
    }
}

/// A `--peer` value that names no mode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown peer `{0}` (expected tvm or tvm-lower)")]
pub struct UnknownPeer(pub String);

impl FromStr for PeerMode {
    type Err = UnknownPeer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PeerMode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| UnknownPeer(s.to_string()))
    }
}

/// Gives `input` to TVM in `mode`: TVM's answer, or why there is none.
pub fn run_tvm(input: &IRModule, mode: PeerMode) -> Result<TvmReply, PeerError> {
    let text = print_module(&s_tir::for_tvm(input));
    with_worker(|worker| worker.request(mode.op(), &text, REQUEST_LIMIT))
}

/// A failure of the `tvm` oracle.
fn tvm_failure(class: TvmClass, message: String) -> Failure {
    Failure::new(OracleName::Tvm, class.failure_class(), message)
}

/// The `tvm` oracle: TVM's pass on `input`, judged (see the module documentation); `ours` is
/// tirproof's pass's output on the same input (`None`: tirproof's pass refuses it).
pub fn check(
    input: &IRModule,
    ours: Option<&IRModule>,
    mode: PeerMode,
    seed: u64,
    timeout: Duration,
    known: Known,
) -> Outcome {
    let printed = match run_tvm(input, mode) {
        Err(PeerError::Hung { limit }) => {
            return Outcome::Fail(tvm_failure(TvmClass::Hung, format!("TVM did not answer within {limit:?}")));
        }
        Err(error @ PeerError::Crashed { .. }) => {
            return Outcome::Fail(tvm_failure(TvmClass::Crashed, error.to_string()))
        }
        Err(error) => return Outcome::not_applicable(error.to_string()),
        Ok(TvmReply::Refused(refusal)) => {
            let class = TvmClass::of_refusal(&refusal);
            let stage = match refusal.stage {
                TvmStage::Parse => "TVM's parser refuses the program",
                TvmStage::Pass => "TVM's pass raises",
                TvmStage::Print => "TVM cannot print its result",
            };
            let at = refusal.location.as_deref().map(|l| format!(" (at {l})")).unwrap_or_default();
            return Outcome::Fail(tvm_failure(
                class,
                format!("{stage}: {}: {}{at}", refusal.kind, refusal.message.trim()),
            ));
        }
        Ok(TvmReply::Printed(text)) => text,
    };
    let theirs = match parse_text(&printed) {
        Ok(Some(module)) => module,
        Ok(None) => return Outcome::Fail(unreadable(&printed)),
        Err(failure) => return Outcome::Fail(failure),
    };
    judge(input, ours, &theirs, seed, timeout, known)
}

/// The failure for TVM output the reader or the checker refuses: a wait with a negative
/// constant count is TVM's error (the checker refuses it before anything runs); anything else
/// is text tirproof cannot read, with the diagnostics and the text.
fn unreadable(printed: &str) -> Failure {
    let diagnostics = match tirproof_reader::parse_module(printed) {
        Err(diagnostics) => diagnostics,
        Ok(module) => {
            if let Some((count, line)) = negative_constant_wait(&module) {
                let message = format!("TVM's output waits with in-flight count {count} (line {line})");
                return tvm_failure(TvmClass::NegativeCount, message).with_counterexample(printed.to_string());
            }
            tirproof_ir::check::check_module(&module)
        }
    };
    let why = diagnostics.render("tvm_output.py", printed);
    tvm_failure(TvmClass::OutputUnreadable, format!("tirproof cannot read TVM's output: {why}"))
        .with_counterexample(printed.to_string())
}

/// A wait of `module` whose in-flight count is a negative constant, and its line.
fn negative_constant_wait(module: &IRModule) -> Option<(i64, u32)> {
    wait_counts(module).into_iter().find_map(|(count, line)| count.as_int().filter(|n| *n < 0).map(|n| (n, line)))
}

/// The in-flight count of every wait of `module`, in walk order, with its line: an attribute
/// statement, or an S-TIR block's annotation (as TVM's pass writes them in blocks).
fn wait_counts(module: &IRModule) -> Vec<(Expr, u32)> {
    struct Counts(Vec<(Expr, u32)>);
    impl Visitor for Counts {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            let key = tirproof_ir::annotation::ASYNC_WAIT_INFLIGHT_COUNT;
            let count = match &stmt.kind {
                StmtKind::Attr(attr) if attr.key == key => Some(attr.value.clone()),
                StmtKind::Block(block) => match block.annotations.get(key) {
                    Some(AnnValue::Int(n)) => Some(Expr::int(*n)),
                    Some(AnnValue::Expr(e)) => Some(e.clone()),
                    _ => None,
                },
                _ => None,
            };
            self.0.extend(count.map(|count| (count, stmt.span.line)));
            walk_stmt(self, stmt);
        }
    }
    let mut counts = Counts(Vec::new());
    for func in &module.functions {
        counts.visit_stmt(&func.body);
    }
    counts.0
}

/// Judges TVM's output `theirs` of `input` (see the module documentation).
pub fn judge(
    input: &IRModule,
    ours: Option<&IRModule>,
    theirs: &IRModule,
    seed: u64,
    timeout: Duration,
    known: Known,
) -> Outcome {
    let compared = compare_waits(ours, theirs);
    match equivalence::check(OracleName::Tvm, input, theirs, seed) {
        Outcome::Pass => {}
        Outcome::Fail(failure) => {
            let class = match failure.class {
                FailureClass::Fault { side: Side::Transformed, kind } => TvmClass::of_fault(kind),
                FailureClass::OutputMismatch => TvmClass::WrongResult,
                FailureClass::Fault { side: Side::Original, .. }
                | FailureClass::InterpreterError { side: Side::Original } => {
                    return Outcome::not_applicable("the input does not run cleanly on its own");
                }
                _ => {
                    let why = format!("the interpreter cannot run TVM's output: {}", failure.message);
                    return Outcome::Skip(SkipReason::Undecided(why));
                }
            };
            let mut evidence = failure.counterexample.unwrap_or_default();
            // The verifier's word on the same output, for the report.
            if let (Outcome::Fail(proof), _) = waits::tight(theirs, known, timeout) {
                let _ = write!(evidence, "\n\nverifier: {}", proof.message);
                if let Some(values) = proof.counterexample {
                    let _ = write!(evidence, "\ncounterexample: {values}");
                }
            }
            let message = format!("TVM's output, run against the input: {}\n{compared}", failure.message);
            return Outcome::Fail(tvm_failure(class, message).with_counterexample(evidence.trim().to_string()));
        }
        skip @ Outcome::Skip(_) => return skip,
    }
    match waits::tight(theirs, known, timeout) {
        (Outcome::Fail(failure), _) => {
            let class = match failure.class {
                FailureClass::WaitRefuted => TvmClass::RacyProved,
                FailureClass::WaitOverSynchronized => TvmClass::OverSynchronized,
                _ => {
                    let unknown = SkipReason::VerifierUnknown(
                        crate::oracle::UndecidedKind::Other,
                        format!("TVM's output: {}", failure.message),
                    );
                    return Outcome::Skip(unknown);
                }
            };
            let message = format!("TVM's output: {}\n{compared}", failure.message);
            let failure = match failure.counterexample {
                Some(values) => tvm_failure(class, message).with_counterexample(values),
                None => tvm_failure(class, message),
            };
            Outcome::Fail(failure)
        }
        (outcome, _) => outcome,
    }
}

/// The waits of both outputs, side by side, for messages.
fn compare_waits(ours: Option<&IRModule>, theirs: &IRModule) -> String {
    let counts = |module: &IRModule| {
        let counts: Vec<String> = wait_counts(module).iter().map(|(count, _)| print_expr(count)).collect();
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        }
    };
    let ours = ours.map_or_else(|| "it refuses the program".to_string(), counts);
    format!("waits of TVM's output: {}; of tirproof's pass: {ours}", counts(theirs))
}

/// A Python script that shows TVM's behaviour on `input` in `mode`: it parses the S-TIR text
/// tirproof gave TVM, runs the passes and prints the result (or raises TVM's error).
pub fn reproduction(input: &IRModule, mode: PeerMode) -> String {
    let text = print_module(&s_tir::for_tvm(input));
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("from ") && !l.starts_with("import "))
        .map(|l| format!("{}\n", l.replace('\\', "\\\\").replace("'''", "\\'\\'\\'")))
        .collect();
    let mut script = String::new();
    let _ = writeln!(script, "# Reproduces the finding in TVM {TVM_VERSION} (pip install apache-tvm=={TVM_VERSION}).");
    let _ = writeln!(script, "import tvm\nimport tvm.s_tir\nimport tvm.tirx\n");
    let _ = writeln!(script, "SOURCE = '''\n{body}'''\n");
    let _ = writeln!(script, "mod = tvm.script.from_source(SOURCE)");
    let _ = writeln!(script, "if not isinstance(mod, tvm.IRModule):\n    mod = tvm.IRModule({{\"main\": mod}})");
    script.push_str(mode.python_passes());
    script.push_str("print(mod.script())\n");
    script
}

/// What a `tvm-finding` case records besides the program.
#[derive(Clone, Copy, Debug)]
pub struct Finding<'a> {
    pub class: &'a TvmClass,
    pub desc: &'a str,
    /// The chain's seed (inputs and the random schedule).
    pub seed: u64,
    /// Which of TVM's passes showed it.
    pub mode: PeerMode,
}

/// The line that starts TVM's recorded output in a `tvm-finding` corpus case.
pub const TVM_OUTPUT_MARKER: &str = "# ---- TVM's output ----";

/// A `# test: tvm-finding` corpus case (see the filetests) for a finding of class `class` on
/// `program`: the header, the program, and TVM's output commented after [`TVM_OUTPUT_MARKER`].
pub fn finding_case(finding: &Finding<'_>, program: &str, tvm_output: Option<&str>) -> String {
    let seed = if finding.seed == 0 { String::new() } else { format!("# seed: {}\n", finding.seed) };
    let peer = match finding.mode {
        PeerMode::Pipeline => String::new(),
        mode => format!("# peer: {}\n", mode.name()),
    };
    let (class, desc) = (finding.class.key(), finding.desc);
    let mut text =
        format!("# test: tvm-finding\n# tvm: {class}\n{seed}{peer}# desc: {desc}\n\n{}\n", program.trim_end());
    if let Some(output) = tvm_output {
        text.push_str(&format!("\n{TVM_OUTPUT_MARKER}\n"));
        for line in output.trim_end().lines() {
            text.push_str(&if line.is_empty() { "#\n".to_string() } else { format!("# {line}\n") });
        }
    }
    text
}
