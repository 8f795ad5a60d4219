//! What MLIR's pipeliner did with one program: the closed [`MlirClass`], the [`MlirOutcome`]
//! with its message, and the [`DedupKey`] campaigns deduplicate by.
//!
//! mlir-opt's answer is classed in this order: killed by a signal (or LLVM's crash report) is
//! [`MlirClass::Crashed`], past the time limit [`MlirClass::Hung`], another nonzero exit
//! [`MlirClass::Refused`] (keyed by its first diagnostic with numbers and names blanked). An
//! output the nvgpu reader refuses is [`MlirClass::OutputUnreadable`]: tirproof's limit, kept
//! apart from MLIR's faults. An output read back is verified wait by wait, with tightness:
//! a refuted wait or a function-level race is [`MlirClass::Unsafe`]; groups holding copies in
//! flight when the function ends (the pipeliner without epilogue peeling leaves no wait after
//! the loop) are [`MlirClass::GroupsInFlightAtEnd`]; an undecided obligation is
//! [`MlirClass::Unknown`] (never a pass); a safe wait that allows more groups in flight is
//! [`MlirClass::OverSynchronized`]; otherwise MLIR and tirproof [`MlirClass::Agree`].
//!
//! Invariants: judging never panics on any reply; the input is judged apart
//! ([`judge_input`]): an unpipelined program that does not verify safe is the generator's
//! fault, never MLIR's.

use std::fmt;
use std::time::Duration;

use tirproof_foreign::{import, Dialect};
use tirproof_verify::waits::{verify_func, FuncReport, Options, WaitVerdict};

use super::gen::{Case, CopyLoop, Layout, TripCount, WaitOn};
use super::run::{MlirExit, MlirReply};

/// How the verifier judges MLIR's output: each check gets `timeout`, a function `budget`.
pub const VERIFY_OPTIONS: Options = Options {
    timeout: Duration::from_secs(10),
    dump_smtlib: false,
    tightness: true,
    budget: Some(Duration::from_secs(60)),
};

/// What mlir-opt's pipeliner did with a program (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MlirClass {
    /// mlir-opt exited nonzero; `diagnostic` is its first diagnostic, blanked.
    Refused { diagnostic: String },
    /// mlir-opt was killed by a signal or reported a crash.
    Crashed,
    /// mlir-opt ran past the time limit.
    Hung,
    /// tirproof's nvgpu reader refuses mlir-opt's output.
    OutputUnreadable,
    /// A wait of the output is refuted, or the output races at function level.
    Unsafe,
    /// Groups holding copies are still in flight when the function ends.
    GroupsInFlightAtEnd,
    /// Every wait is safe, and one waits for more groups than it needs (by how much is in
    /// [`MlirOutcome::over_by`]: a class carries no numbers, so findings deduplicate by kind).
    OverSynchronized,
    /// Every wait is safe and tight, and nothing is found at the function level.
    Agree,
    /// The verifier could not decide something.
    Unknown,
}

impl MlirClass {
    /// Whether mlir-opt's output was read back and verified.
    pub fn judges_output(&self) -> bool {
        !matches!(self, MlirClass::Refused { .. } | MlirClass::Crashed | MlirClass::Hung | MlirClass::OutputUnreadable)
    }

    /// The class's key: `refused:DIAGNOSTIC`, `unsafe`, `over-synchronized`, ... How many
    /// groups an over-synchronized wait allows is left out: it is one root cause.
    pub fn key(&self) -> String {
        match self {
            MlirClass::Refused { diagnostic } => format!("refused:{diagnostic}"),
            MlirClass::Crashed => "crashed".into(),
            MlirClass::Hung => "hung".into(),
            MlirClass::OutputUnreadable => "output-unreadable".into(),
            MlirClass::Unsafe => "unsafe".into(),
            MlirClass::GroupsInFlightAtEnd => "groups-in-flight-at-end".into(),
            MlirClass::OverSynchronized => "over-synchronized".into(),
            MlirClass::Agree => "agree".into(),
            MlirClass::Unknown => "unknown".into(),
        }
    }
}

impl fmt::Display for MlirClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// The judgement of one reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirOutcome {
    pub class: MlirClass,
    /// What happened, for a person: the diagnostic, the refuted wait with the read it
    /// exposes, the finding.
    pub message: String,
    /// What mlir-opt printed, when it printed a program.
    pub output: Option<String>,
    /// For [`MlirClass::OverSynchronized`]: how many more groups the first such wait could
    /// leave in flight (`Some(None)`: the wait is not needed at all).
    pub over_by: Option<Option<i64>>,
}

/// The structural features of a program a finding is deduplicated by, with its class.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DedupKey {
    pub class: MlirClass,
    pub depth: u8,
    pub peel_epilogue: bool,
    pub copies: usize,
    pub groups: usize,
    pub layout: LayoutKey,
    pub wait_on_copy_token: bool,
    pub trip_from_argument: bool,
    /// The loop also reads another iteration's part: the pipeliner may refill it meanwhile.
    pub reads_other_part: bool,
}

impl DedupKey {
    /// The key of `outcome` on `case`.
    pub fn of(case: &Case, outcome: &MlirOutcome) -> DedupKey {
        let p = &case.program;
        DedupKey {
            class: outcome.class.clone(),
            depth: case.options.depth,
            peel_epilogue: case.options.peel_epilogue,
            copies: p.copies.len(),
            groups: p.groups(),
            layout: LayoutKey::of(p.layout, case.options.depth),
            wait_on_copy_token: p.wait_on == WaitOn::CopyToken,
            trip_from_argument: p.trip == TripCount::Argument,
            reads_other_part: p.read_earlier,
        }
    }
}

impl fmt::Display for DedupKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mlir:{} depth={} peel={} copies={} groups={} layout={} wait-on={} trip={} reads-other-part={}",
            self.class,
            self.depth,
            if self.peel_epilogue { "on" } else { "off" },
            self.copies,
            self.groups,
            self.layout,
            if self.wait_on_copy_token { "copy-token" } else { "group-token" },
            if self.trip_from_argument { "argument" } else { "constant" },
            if self.reads_other_part { "yes" } else { "no" },
        )
    }
}

/// Where a program's iterations copy to, as far as the pipeliner's contract goes: it leaves
/// the allocation as it is, so a ring of fewer slots than stages is refilled while read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LayoutKey {
    /// A part per iteration.
    OwnPart,
    /// A ring of at least as many slots as the pipeline has stages.
    Ring,
    /// A ring of fewer slots than stages.
    RingShorterThanDepth,
}

impl LayoutKey {
    pub fn of(layout: Layout, depth: u8) -> LayoutKey {
        match layout {
            Layout::OwnPart => LayoutKey::OwnPart,
            Layout::Ring { slots } if slots < depth => LayoutKey::RingShorterThanDepth,
            Layout::Ring { .. } => LayoutKey::Ring,
        }
    }
}

impl fmt::Display for LayoutKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LayoutKey::OwnPart => "own-part",
            LayoutKey::Ring => "ring",
            LayoutKey::RingShorterThanDepth => "ring-shorter-than-depth",
        })
    }
}

/// An unpipelined program that does not verify safe: the generator broke its invariant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the unpipelined program does not verify safe: {why}\n{text}")]
pub struct InputNotSafe {
    pub why: String,
    pub text: String,
}

/// Checks that `program`, unpipelined, is read and verifies safe (every wait proved, no
/// finding, nothing undecided).
pub fn judge_input(program: &CopyLoop) -> Result<(), InputNotSafe> {
    let text = program.to_mlir();
    let fail = |why: String| InputNotSafe { why, text: text.clone() };
    let module = import(&text, Dialect::Nvgpu).map_err(|d| fail(d.render("input.mlir", &text)))?;
    let options = Options { tightness: false, ..VERIFY_OPTIONS };
    for func in &module.module.functions {
        let report = verify_func(func, &options).0;
        if report.waits.is_empty() {
            return Err(fail(format!("function {} has no wait", report.name)));
        }
        if !report.all_proved() {
            return Err(fail(format!("{report:?}")));
        }
    }
    Ok(())
}

/// Judges mlir-opt's `reply` to `case` with [`VERIFY_OPTIONS`].
pub fn judge(case: &Case, reply: &MlirReply) -> MlirOutcome {
    judge_with(case, reply, &VERIFY_OPTIONS)
}

/// Judges mlir-opt's `reply` to `case`, verifying its output with `options`.
pub fn judge_with(case: &Case, reply: &MlirReply, options: &Options) -> MlirOutcome {
    let outcome = |class, message: String| MlirOutcome { class, message, output: None, over_by: None };
    let depth = case.options.depth;
    if matches!(reply.exit, MlirExit::Signal(_)) || is_crash_report(&reply.stderr) {
        let how = match reply.exit {
            MlirExit::Signal(signal) => format!("mlir-opt was killed by signal {signal}"),
            _ => "mlir-opt reported a crash".to_owned(),
        };
        return outcome(MlirClass::Crashed, format!("{how} (depth {depth}): {}", tail(&reply.stderr)));
    }
    match reply.exit {
        MlirExit::TimedOut => return outcome(MlirClass::Hung, "mlir-opt did not finish within its time limit".into()),
        MlirExit::Failed(code) => {
            let first = first_diagnostic(&reply.stderr);
            let class = MlirClass::Refused { diagnostic: blank(&first) };
            return outcome(class, format!("mlir-opt exited with {code}: {first}"));
        }
        MlirExit::Success | MlirExit::Signal(_) => {}
    }
    let printed = reply.stdout.clone();
    let module = match import(&printed, Dialect::Nvgpu) {
        Ok(module) => module,
        Err(diagnostics) => {
            let why = diagnostics.render("mlir_output.mlir", &printed);
            return MlirOutcome {
                class: MlirClass::OutputUnreadable,
                message: format!("tirproof's nvgpu reader refuses mlir-opt's output: {why}"),
                output: Some(printed),
                over_by: None,
            };
        }
    };
    let reports: Vec<FuncReport> = module.module.functions.iter().map(|f| verify_func(f, options).0).collect();
    let (class, message) = class_of_reports(&reports, &printed);
    let over_by = (class == MlirClass::OverSynchronized).then(|| over_by(&reports));
    MlirOutcome { class, message, output: Some(printed), over_by }
}

/// The class of the verifier's reports on mlir-opt's output `printed`, and its message.
pub fn class_of_reports(reports: &[FuncReport], printed: &str) -> (MlirClass, String) {
    let line_text = |line: u32| {
        let text = usize::try_from(line).ok().and_then(|l| printed.lines().nth(l.checked_sub(1)?)).unwrap_or("");
        text.trim().to_owned()
    };
    let waits = || reports.iter().flat_map(|r| &r.waits);
    let findings = || reports.iter().flat_map(|r| &r.findings);
    if let Some(wait) = waits().find(|w| w.verdict.is_refuted()) {
        let WaitVerdict::Refuted { reason, .. } = &wait.verdict else { unreachable!("a refuted verdict") };
        let message = format!("the wait at line {} (`{}`) is refuted: {reason}", wait.line, line_text(wait.line));
        return (MlirClass::Unsafe, message);
    }
    if let Some(race) = findings().find(|f| !is_left_in_flight(&f.message)) {
        return (MlirClass::Unsafe, format!("line {} (`{}`): {}", race.line, line_text(race.line), race.message));
    }
    if let Some(end) = findings().next() {
        return (MlirClass::GroupsInFlightAtEnd, end.message.clone());
    }
    let undecided: Vec<String> = reports.iter().flat_map(|r| r.unknown.iter().map(ToString::to_string)).collect();
    if let Some(first) = undecided.first() {
        return (MlirClass::Unknown, format!("the verifier could not decide: {first}"));
    }
    if let Some(wait) =
        waits().find(|w| matches!(w.verdict, WaitVerdict::Unknown { .. } | WaitVerdict::ProvedBounded { .. }))
    {
        return (MlirClass::Unknown, format!("the wait at line {} (`{}`): {}", wait.line, line_text(wait.line), wait));
    }
    if let Some(wait) = waits().find(|w| matches!(w.verdict, WaitVerdict::ProvedOverSynchronized { .. })) {
        let message = format!("the wait at line {} (`{}`): {wait}", wait.line, line_text(wait.line));
        return (MlirClass::OverSynchronized, message);
    }
    let count = waits().count();
    (MlirClass::Agree, format!("{count} waits, every one proved tight"))
}

/// How many more groups than its count the first over-synchronized wait of `reports` could
/// leave in flight (`None`: it is not needed at all).
fn over_by(reports: &[FuncReport]) -> Option<i64> {
    let mut waits = reports.iter().flat_map(|r| &r.waits);
    waits.find_map(|w| match w.verdict {
        WaitVerdict::ProvedOverSynchronized { by, .. } => Some(by),
        _ => None,
    })?
}

/// Whether a function-level finding is the verifier's "groups committed but not complete when
/// the function ends".
pub fn is_left_in_flight(message: &str) -> bool {
    message.contains("are committed but only") && message.contains("when the function ends")
}

/// Whether mlir-opt's stderr holds LLVM's crash report.
fn is_crash_report(stderr: &str) -> bool {
    stderr.contains("PLEASE submit a bug report") || stderr.contains("Stack dump:")
}

/// The last lines of `stderr`, for a crash report.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(6)..].join("\n")
}

/// The first `error:` diagnostic of mlir-opt's stderr without its location, or its first line.
fn first_diagnostic(stderr: &str) -> String {
    let line = stderr.lines().find(|l| l.contains("error: ")).or_else(|| stderr.lines().find(|l| !l.trim().is_empty()));
    let line = line.unwrap_or("(no diagnostic)").trim();
    line.split_once("error: ").map_or(line, |(_, message)| message).trim().to_owned()
}

/// `diagnostic` with what varies between programs blanked: each run of digits becomes `N`,
/// each SSA value or symbol (`%x`, `@f`, `^bb0`) and quoted text `_`; at most 100 characters.
fn blank(diagnostic: &str) -> String {
    let mut out = String::new();
    let mut chars = diagnostic.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => {
                while chars.next_if(char::is_ascii_digit).is_some() {}
                out.push('N');
            }
            '%' | '@' | '^' => {
                while chars.next_if(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')).is_some() {}
                out.push('_');
            }
            '\'' | '"' | '`' => {
                while chars.next_if(|n| *n != c).is_some() {}
                chars.next();
                out.push('_');
            }
            c => out.push(c),
        }
        if out.len() >= 100 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mlir_peer::gen::{generate, Grouping, PipelineOptions};

    fn case() -> Case {
        Case {
            program: CopyLoop {
                trip: TripCount::Constant(6),
                step: 1,
                layout: Layout::OwnPart,
                copies: vec![4],
                grouping: Grouping::OneGroup,
                wait_on: WaitOn::GroupToken,
                wait_count: None,
                reads: vec![0],
                read_earlier: false,
            },
            options: PipelineOptions { depth: 2, peel_epilogue: true },
        }
    }

    fn reply(exit: MlirExit, stdout: &str, stderr: &str) -> MlirReply {
        MlirReply { exit, stdout: stdout.to_owned(), stderr: stderr.to_owned() }
    }

    /// mlir-opt 22's printing of a loop pipelined by hand the way the pipeliner does (depth 2,
    /// epilogue peeled), with the in-loop wait's `numGroups` as given and the epilogue's
    /// waits as given.
    fn pipelined(in_loop: u32, epilogue: &[u32]) -> String {
        let mut text = String::from(concat!(
            "module {\n",
            "  func.func @f(%arg0: memref<64xf32>, %arg1: memref<1xf32>) {\n",
            "    %c0 = arith.constant 0 : index\n",
            "    %c1 = arith.constant 1 : index\n",
            "    %c4 = arith.constant 4 : index\n",
            "    %c6 = arith.constant 6 : index\n",
            "    %alloc = memref.alloc() : memref<6x4xf32, #gpu.address_space<workgroup>>\n",
            "    %0 = nvgpu.device_async_copy %arg0[%c0], %alloc[%c0, %c0], 4 : memref<64xf32> to memref<6x4xf32, #gpu.address_space<workgroup>>\n",
            "    %1 = nvgpu.device_async_create_group %0\n",
            "    %2 = nvgpu.device_async_copy %arg0[%c4], %alloc[%c1, %c0], 4 : memref<64xf32> to memref<6x4xf32, #gpu.address_space<workgroup>>\n",
            "    %3 = nvgpu.device_async_create_group %2\n",
            "    %c5 = arith.constant 5 : index\n",
            "    %4:2 = scf.for %arg2 = %c0 to %c4 step %c1 iter_args(%arg3 = %1, %arg4 = %3) -> (!nvgpu.device.async.token, !nvgpu.device.async.token) {\n",
        ));
        text += &format!("      nvgpu.device_async_wait %arg3 {{numGroups = {in_loop} : i32}}\n");
        text += concat!(
            "      %5 = memref.load %alloc[%arg2, %c0] : memref<6x4xf32, #gpu.address_space<workgroup>>\n",
            "      %6 = arith.addi %arg2, %c1 : index\n",
            "      %7 = arith.addi %6, %c1 : index\n",
            "      %8 = arith.muli %7, %c4 : index\n",
            "      %9 = nvgpu.device_async_copy %arg0[%8], %alloc[%7, %c0], 4 : memref<64xf32> to memref<6x4xf32, #gpu.address_space<workgroup>>\n",
            "      %10 = nvgpu.device_async_create_group %9\n",
            "      scf.yield %arg4, %10 : !nvgpu.device.async.token, !nvgpu.device.async.token\n",
            "    }\n",
        );
        let slots = ["%c4", "%c5"];
        for (count, slot) in epilogue.iter().zip(slots) {
            text += &format!("    nvgpu.device_async_wait %4#0 {{numGroups = {count} : i32}}\n");
            text += &format!(
                "    %r{count} = memref.load %alloc[{slot}, %c0] : memref<6x4xf32, #gpu.address_space<workgroup>>\n"
            );
        }
        text += "    return\n  }\n}\n";
        text
    }

    #[test]
    fn a_nonzero_exit_is_refused_by_its_blanked_first_diagnostic() {
        let stderr = "input.mlir:9:10: error: pipelining preconditions failed\n  %sum = scf.for\n         ^\n";
        let outcome = judge(&case(), &reply(MlirExit::Failed(1), "", stderr));
        assert_eq!(outcome.class, MlirClass::Refused { diagnostic: "pipelining preconditions failed".into() });
        let stderr = "in.mlir:11:10: error: Requested copy elements is 3 with width 32. But copy elements could be one of 1, 2, 4.";
        let outcome = judge(&case(), &reply(MlirExit::Failed(1), "", stderr));
        let key = "refused:Requested copy elements is N with width N. But copy elements could be one of N, N, N.";
        assert_eq!(outcome.class.key(), key);
        assert_eq!(blank("use of value '%c3' expects @f and %x_1"), "use of value _ expects _ and _");
    }

    #[test]
    fn a_signal_or_a_crash_report_is_a_crash_and_a_timeout_a_hang() {
        assert_eq!(judge(&case(), &reply(MlirExit::Signal(11), "", "")).class, MlirClass::Crashed);
        let report = "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\nStack dump:\n";
        assert_eq!(judge(&case(), &reply(MlirExit::Failed(134), "", report)).class, MlirClass::Crashed);
        assert_eq!(judge(&case(), &reply(MlirExit::TimedOut, "", "")).class, MlirClass::Hung);
    }

    #[test]
    fn an_output_the_reader_refuses_is_unreadable_and_kept() {
        let printed = "module {\n  func.func @f(%a: memref<?xf32>) {\n    return\n  }\n}\n";
        let outcome = judge(&case(), &reply(MlirExit::Success, printed, ""));
        assert_eq!(outcome.class, MlirClass::OutputUnreadable, "{outcome:?}");
        assert_eq!(outcome.output.as_deref(), Some(printed));
    }

    #[test]
    fn a_tight_pipeline_agrees_and_a_looser_one_is_unsafe() {
        let agree = judge(&case(), &reply(MlirExit::Success, &pipelined(1, &[1, 0]), ""));
        assert_eq!(agree.class, MlirClass::Agree, "{agree:?}");
        let unsafe_ = judge(&case(), &reply(MlirExit::Success, &pipelined(2, &[1, 0]), ""));
        assert_eq!(unsafe_.class, MlirClass::Unsafe, "{unsafe_:?}");
        assert!(unsafe_.message.contains("line 14"), "{}", unsafe_.message);
        assert!(unsafe_.message.contains("nvgpu.device_async_wait %arg3 {numGroups = 2 : i32}"), "{}", unsafe_.message);
    }

    #[test]
    fn a_tighter_wait_is_over_synchronized_and_a_missing_drain_leaves_groups_in_flight() {
        let over = judge(&case(), &reply(MlirExit::Success, &pipelined(0, &[1, 0]), ""));
        assert_eq!(over.class, MlirClass::OverSynchronized, "{over:?}");
        assert_eq!(over.over_by, Some(Some(1)), "{over:?}");
        let end = judge(&case(), &reply(MlirExit::Success, &pipelined(1, &[1]), ""));
        assert_eq!(end.class, MlirClass::GroupsInFlightAtEnd, "{end:?}");
        assert!(is_left_in_flight(&end.message), "{}", end.message);
    }

    #[test]
    fn the_dedup_key_names_the_class_and_the_shape() {
        let case = generate(3);
        let outcome = MlirOutcome {
            class: MlirClass::OverSynchronized,
            message: String::new(),
            output: None,
            over_by: Some(Some(2)),
        };
        let key = DedupKey::of(&case, &outcome);
        let same = MlirOutcome { over_by: Some(None), ..outcome.clone() };
        assert_eq!(key, DedupKey::of(&case, &same));
        assert!(key.to_string().starts_with("mlir:over-synchronized depth="), "{key}");
        let mut deeper = case.clone();
        deeper.options.depth = if case.options.depth == 4 { 2 } else { case.options.depth + 1 };
        assert_ne!(key, DedupKey::of(&deeper, &outcome));
    }

    #[test]
    fn the_generated_inputs_are_judged_safe_and_a_broken_one_is_not() {
        for seed in 0..5 {
            judge_input(&generate(seed).program).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        let mut broken = case().program;
        broken.wait_count = Some(1);
        assert!(judge_input(&broken).is_err());
    }
}
