//! The `waits-tight` and `agreement` oracles, both about the verifier.
//!
//! `waits-tight`: every wait of the pass's output is proved safe and as large as is safe, with
//! two known exceptions where safe is required and tight is not: the pass counts as if every
//! copy of a predicated statement ran (programs with conditions), and an inner pipeline's
//! final drain (`wait(q, 0)`) inside an outer pipeline could often leave groups for the next
//! outer step (nested programs).
//!
//! `agreement`: on a mutant of the output (one wait, picked by the seed, allows one more group
//! in flight), the verifier proves the mutant exactly when the lazy interpreter runs it without
//! an async-protocol fault, for every tried value of the integer parameters.

use std::collections::BTreeMap;
use std::time::Duration;

use tirproof_interp::{random_inputs, run, FaultKind, RunConfig, ScalarValue};
use tirproof_ir::annotation::ASYNC_WAIT_INFLIGHT_COUNT;
use tirproof_ir::visit::{walk_stmt, walk_stmt_mut, MutVisitor, Visitor};
use tirproof_ir::{Expr, IRModule, PrimFunc, Stmt, StmtKind};
use tirproof_verify::solver::Assignment;
use tirproof_verify::waits::{verify_func, FuncReport, Options, Undecided, WaitCount, WaitIndex, WaitVerdict};

use super::equivalence::{describe_fault, scalar_assignments, show_scalars};
use super::{Failure, FailureClass, OracleName, Outcome, SkipReason};

/// What the input is, for the exceptions of the module documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Known {
    pub predicated: bool,
    pub nested: bool,
}

/// Every wait of every function of `output` proved (and tight, but for the known exceptions),
/// and the verifier's reports, which `agreement` reuses.
pub fn tight(output: &IRModule, known: Known, timeout: Duration) -> (Outcome, Vec<FuncReport>) {
    let options = Options { timeout, ..Options::default() };
    let mut reports = Vec::with_capacity(output.functions.len());
    for func in &output.functions {
        let (report, _) = verify_func(func, &options);
        if let Some(failure) = first_problem(&report, known) {
            return (Outcome::Fail(failure), Vec::new());
        }
        reports.push(report);
    }
    (Outcome::Pass, reports)
}

fn first_problem(report: &FuncReport, known: Known) -> Option<Failure> {
    let oracle = OracleName::WaitsTight;
    for wait in &report.waits {
        let class = match &wait.verdict {
            WaitVerdict::ProvedTight | WaitVerdict::Proved => continue,
            WaitVerdict::ProvedOverSynchronized { .. } if known.predicated => continue,
            WaitVerdict::ProvedOverSynchronized { .. } if known.nested && wait.count == WaitCount::Constant(0) => {
                continue
            }
            WaitVerdict::ProvedOverSynchronized { .. } => FailureClass::WaitOverSynchronized,
            WaitVerdict::Refuted { .. } => FailureClass::WaitRefuted,
            WaitVerdict::Unknown { .. } | WaitVerdict::ProvedBounded { .. } => FailureClass::VerifierUnknown,
        };
        let failure = Failure::new(oracle, class, format!("`{}`: {wait}", report.name)).at_line(wait.line);
        return Some(match &wait.verdict {
            WaitVerdict::Refuted { values, .. } => failure.with_counterexample(show_values(values)),
            WaitVerdict::Unknown { reason } => failure.with_budget_spent(reason.is_budget_spent()),
            _ => failure,
        });
    }
    if let Some(finding) = report.findings.first() {
        let message = format!("`{}`: {}{}", report.name, at_line(finding.line), finding.message);
        let failure = Failure::new(oracle, FailureClass::WaitRefuted, message).at_line(finding.line);
        return Some(failure.with_counterexample(show_values(&finding.values)));
    }
    report.unknown.first().map(|why| {
        let message = format!("`{}`: undecided: {why}", report.name);
        Failure::new(oracle, FailureClass::VerifierUnknown, message).with_budget_spent(why.is_budget_spent())
    })
}

/// `line N: ` for a finding at line `line`; nothing for a function-level finding (line 0: it
/// belongs to no one statement, such as a data-flow reordering or a race between two).
fn at_line(line: u32) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}: ")
    }
}

pub(super) fn show_values(values: &Assignment) -> String {
    if values.is_empty() {
        return "(no variable values)".into();
    }
    values.to_string()
}

/// One program in this many has its mutant verified from its text even when `waits-tight`
/// already measured the loosened wait: that keeps the verifier's text-level refutations under
/// test in campaigns, and checks the two answers against each other.
pub const VERIFY_MUTANT_TEXT_EVERY: u64 = 4;

/// The verifier and the lazy interpreter agree on a loosened wait of `output`.
///
/// The verifier's answer for the mutant comes from `measured` (the reports of `waits-tight` on
/// `output`, all proved) when it has the wait: the mutant is proved exactly when the wait is
/// not tight. Only the wait's count changed, and neither data flow (program order) nor the
/// other waits' obligations depend on it. Otherwise, and for one seed in
/// [`VERIFY_MUTANT_TEXT_EVERY`], the mutant is verified from scratch; with both answers, they
/// must agree too.
pub fn agreement(output: &IRModule, seed: u64, timeout: Duration, measured: Option<&[FuncReport]>) -> Outcome {
    let total = waits_in(output);
    if total == 0 {
        return Outcome::not_applicable("the output has no waits to loosen");
    }
    let target = usize::try_from(seed % total as u64).unwrap_or(0);
    let (mutant, line) = loosen_wait(output, target);
    let from_text = seed.is_multiple_of(VERIFY_MUTANT_TEXT_EVERY);
    match agreement_of(output, &mutant, (target, line), from_text, timeout, measured) {
        Outcome::Fail(failure) => Outcome::Fail(failure.at_line(line)),
        outcome => outcome,
    }
}

/// [`agreement`] on `mutant`, `output` with its wait `target` (at `line`) loosened; the
/// mutant verified from its text too when `from_text`.
fn agreement_of(
    output: &IRModule,
    mutant: &IRModule,
    (target, line): (usize, u32),
    from_text: bool,
    timeout: Duration,
    measured: Option<&[FuncReport]>,
) -> Outcome {
    let Some(located) = locate_wait(output, target) else {
        return Outcome::not_applicable("the loosened wait is in no function");
    };
    let func = &mutant.functions[located.function];
    let what = format!("`{}` with the wait at line {line} loosened by 1", func.name);
    let claimed = measured.and_then(|reports| claim(reports.get(located.function)?, &located));
    let answer = match claimed {
        Some(proved) if !from_text => Answer { proved, refutation: None, values: None },
        _ => match verify_mutant(func, timeout) {
            Err(why) => {
                let message = format!("{what}: undecided: {why}");
                let failure = Failure::new(OracleName::Agreement, FailureClass::VerifierUnknown, message);
                return Outcome::Fail(failure.with_budget_spent(why.is_budget_spent()));
            }
            Ok(answer) if claimed.is_some_and(|c| c != answer.proved) => {
                let message = format!(
                    "{what}: the verifier measured the wait {} but {} the loosened text",
                    if answer.proved { "tight" } else { "not tight" },
                    if answer.proved { "proves" } else { "refutes" },
                );
                let class = FailureClass::TightnessInconsistent;
                return Outcome::Fail(Failure::new(OracleName::Agreement, class, message));
            }
            Ok(answer) => answer,
        },
    };
    compare_with_interpreter(func, &what, answer, &|| verify_mutant(func, timeout).ok())
}

/// What the verifier says about a mutant: proved or not, the first refutation and its
/// counterexample's values (`None` when it was not verified from its text).
struct Answer {
    proved: bool,
    refutation: Option<String>,
    values: Option<Assignment>,
}

/// Where a wait statement of a module is.
struct LocatedWait {
    /// The function that holds it, by its position in the module.
    function: usize,
    /// The wait, among the function's waits.
    index: WaitIndex,
    /// How many waits the function has.
    waits_in_function: usize,
}

/// The verifier's answer for a function with its wait `wait` loosened by 1, from its report
/// on the function as written (every obligation proved): `Some(true)` when the wait is
/// measured over-synchronized, `Some(false)` when tight, `None` when the report does not say
/// (or counts the waits differently, as for an in-flight count outside a wait scope).
fn claim(report: &FuncReport, wait: &LocatedWait) -> Option<bool> {
    if !report.all_proved() || report.waits.len() != wait.waits_in_function {
        return None;
    }
    match report.waits.iter().find(|w| w.index == wait.index)?.verdict {
        WaitVerdict::ProvedTight => Some(false),
        WaitVerdict::ProvedOverSynchronized { .. } => Some(true),
        _ => None,
    }
}

/// Verifies the mutant from its text; `Err` with the reason when something was not decided.
fn verify_mutant(func: &PrimFunc, timeout: Duration) -> Result<Answer, Undecided> {
    let options = Options { timeout, tightness: false, ..Options::default() };
    let (report, _) = verify_func(func, &options);
    let undecided_wait = report.waits.iter().find_map(|w| match &w.verdict {
        WaitVerdict::Unknown { reason } => Some(reason.clone()),
        _ => None,
    });
    if let Some(why) = report.unknown.first().cloned().or(undecided_wait) {
        return Err(why);
    }
    let refuted = report.waits.iter().find_map(|w| match &w.verdict {
        WaitVerdict::Refuted { values, .. } => Some((w.to_string(), values.clone())),
        _ => None,
    });
    let finding = report.findings.first().map(|f| (format!("{}{}", at_line(f.line), f.message), f.values.clone()));
    let (refutation, values) = refuted.or(finding).unzip();
    Ok(Answer { proved: report.all_proved(), refutation, values: Some(values.unwrap_or_default()) })
}

/// The verifier's answer against the lazy interpreter's runs of the mutant.
fn compare_with_interpreter(
    func: &PrimFunc,
    what: &str,
    answer: Answer,
    recheck: &dyn Fn() -> Option<Answer>,
) -> Outcome {
    let fault = match interpreter_fault(func, &answer, recheck) {
        Ok(fault) => fault,
        Err(reason) => return Outcome::Skip(reason),
    };
    if answer.proved == fault.is_none() {
        return Outcome::Pass;
    }
    if !answer.proved && super::control_reads_memory(func) {
        // The counterexample chooses the data a condition reads; the inputs tried may not.
        return Outcome::Skip(SkipReason::Undecided(format!(
            "the verifier refutes {what} for some input data, which the inputs tried do not give"
        )));
    }
    let message = match answer.proved {
        true => format!("the verifier proves {what}, but it faults"),
        false => format!("the verifier refutes {what}, but the lazy interpreter runs it without a fault"),
    };
    let evidence = fault.or(answer.refutation).unwrap_or_default();
    let class = FailureClass::Disagreement { verifier_proved: answer.proved };
    Outcome::Fail(Failure::new(OracleName::Agreement, class, message).with_counterexample(evidence))
}

/// The interpreter's async fault on the mutant, if it shows one; `Err` with why it has no
/// answer. When the verifier refutes a mutant that runs cleanly for the usual parameter values,
/// the values of its counterexample (from `recheck` when `answer` has none) are run too: a
/// symbolic extent's counterexample may need one the usual values miss. A counterexample too
/// long to run (an extent near 2^31, where an index wraps) is neither confirmed nor contradicted.
fn interpreter_fault(
    func: &PrimFunc,
    answer: &Answer,
    recheck: &dyn Fn() -> Option<Answer>,
) -> Result<Option<String>, SkipReason> {
    let fault = lazy_runs(func, scalar_assignments(func), is_mutant_fault, 0).fault().map_err(SkipReason::Undecided)?;
    if answer.proved || fault.is_some() {
        return Ok(fault);
    }
    let values = match &answer.values {
        Some(values) => values.clone(),
        None => recheck().and_then(|a| a.values).unwrap_or_default(),
    };
    match replay_assignment(func, &values) {
        Some(assignment) => {
            lazy_runs(func, vec![assignment], is_mutant_fault, 0).fault().map_err(SkipReason::Undecided)
        }
        None => match too_large_to_replay(func, &values) {
            Some(value) => Err(SkipReason::Unreplayable(format!(
                "`{}`: the refutation's counterexample ({value}) is too long to replay",
                func.name
            ))),
            None => Ok(None),
        },
    }
}

/// Largest parameter value of a counterexample the interpreter replays (an extent: the run
/// takes time in proportion).
const MAX_REPLAYED_VALUE: i64 = 1 << 16;

/// The integer parameters of `func` with their values in a counterexample (1 for those it
/// does not constrain); `None` when it names none of them, or a value too large to run.
pub(crate) fn replay_assignment(func: &PrimFunc, values: &Assignment) -> Option<BTreeMap<String, ScalarValue>> {
    let params: Vec<String> =
        func.scalar_params().filter(|v| v.dtype().is_integer()).map(|v| v.name().to_string()).collect();
    let value_of = |name: &str| values.get(name);
    if params.iter().all(|p| value_of(p).is_none()) {
        return None;
    }
    let assignment: BTreeMap<String, ScalarValue> =
        params.iter().map(|p| (p.clone(), ScalarValue::Int(value_of(p).unwrap_or(1)))).collect();
    let fits = assignment.values().all(|v| matches!(v, ScalarValue::Int(n) if n.abs() <= MAX_REPLAYED_VALUE));
    fits.then_some(assignment)
}

/// The first integer parameter of `func` whose value in a counterexample is too large for
/// the interpreter to replay (`n = 715827884`: as many iterations), shown as `name = value`.
pub(super) fn too_large_to_replay(func: &PrimFunc, values: &Assignment) -> Option<String> {
    func.scalar_params().filter(|v| v.dtype().is_integer()).find_map(|v| {
        values.get(v.name()).filter(|n| n.abs() > MAX_REPLAYED_VALUE).map(|n| format!("{} = {n}", v.name()))
    })
}

/// Where the `target`-th wait of `module` (walk order) is.
fn locate_wait(module: &IRModule, target: usize) -> Option<LocatedWait> {
    let mut before = 0;
    for (function, func) in module.functions.iter().enumerate() {
        let here = count_waits(&func.body);
        if target < before + here {
            return Some(LocatedWait { function, index: WaitIndex::new(target - before), waits_in_function: here });
        }
        before += here;
    }
    None
}

/// What the lazy interpreter says about a mutant over every tried scalar value and two thread
/// orders.
pub(super) enum LazyRuns {
    /// A fault of the async protocol (the first one found): described, its kind and the line
    /// of the statement that faulted (0 when unknown).
    AsyncFault { described: String, kind: FaultKind, line: u32 },
    /// Every run completed without a fault.
    Clean,
    /// Some run stopped at another fault (or could not run) before it could show one: the
    /// interpreter has no answer about the async protocol there.
    Inconclusive(String),
}

impl LazyRuns {
    /// The async fault, if any; `Err` with the reason when the runs are inconclusive.
    fn fault(self) -> Result<Option<String>, String> {
        match self {
            LazyRuns::AsyncFault { described, .. } => Ok(Some(described)),
            LazyRuns::Clean => Ok(None),
            LazyRuns::Inconclusive(why) => Err(why),
        }
    }
}

/// The faults `agreement` counts as the interpreter's evidence against a mutant.
fn is_mutant_fault(kind: FaultKind) -> bool {
    use FaultKind::*;
    matches!(kind, ReadPendingAsync | WritePendingAsync | CrossThreadRace | NegativeWait | UnwaitedGroup)
}

/// The lazy runs of `func` for each of `assignments` on the inputs of `input_seed`, where a
/// fault `counts` is the answer.
pub(super) fn lazy_runs(
    func: &PrimFunc,
    assignments: Vec<BTreeMap<String, ScalarValue>>,
    counts: fn(FaultKind) -> bool,
    input_seed: u64,
) -> LazyRuns {
    let mut inconclusive = None;
    for scalars in assignments {
        let inputs = match random_inputs(func, input_seed, &scalars) {
            Ok(inputs) => inputs,
            Err(e) => {
                inconclusive.get_or_insert_with(|| format!("no inputs for the program: {e}"));
                continue;
            }
        };
        for thread_order_seed in [None, Some(1)] {
            let config = RunConfig { thread_order_seed, ..RunConfig::default() };
            let result = match run(func, &inputs, &config) {
                Ok(result) => result,
                Err(e) => {
                    inconclusive.get_or_insert_with(|| format!("the interpreter cannot run the program: {e}"));
                    continue;
                }
            };
            let Some(fault) = result.outcome.fault() else { continue };
            if counts(fault.kind) {
                let described = format!("{} with {}", describe_fault(fault), show_scalars(&scalars));
                return LazyRuns::AsyncFault { described, kind: fault.kind, line: fault.span.line };
            }
            inconclusive.get_or_insert_with(|| format!("the program stops at another fault first: {fault}"));
        }
    }
    inconclusive.map_or(LazyRuns::Clean, LazyRuns::Inconclusive)
}

/// How many wait statements (`async_wait_inflight_count`) `module` has, in walk order.
pub fn waits_in(module: &IRModule) -> usize {
    module.functions.iter().map(|f| count_waits(&f.body)).sum()
}

fn count_waits(stmt: &Stmt) -> usize {
    struct Count(usize);
    impl Visitor for Count {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if is_wait_count(stmt) {
                self.0 += 1;
            }
            walk_stmt(self, stmt);
        }
    }
    let mut count = Count(0);
    count.visit_stmt(stmt);
    count.0
}

fn is_wait_count(stmt: &Stmt) -> bool {
    matches!(&stmt.kind, StmtKind::Attr(a) if a.key == ASYNC_WAIT_INFLIGHT_COUNT)
}

/// A copy of `module` whose `target`-th wait (in walk order) allows one more group in flight,
/// and the line of that wait.
pub fn loosen_wait(module: &IRModule, target: usize) -> (IRModule, u32) {
    struct Loosen {
        target: usize,
        seen: usize,
        line: u32,
    }
    impl MutVisitor for Loosen {
        fn mutate_stmt(&mut self, stmt: &mut Stmt) {
            if is_wait_count(stmt) {
                if self.seen == self.target {
                    self.line = stmt.span.line;
                    if let StmtKind::Attr(a) = &mut stmt.kind {
                        a.value = a.value.clone() + Expr::int(1);
                    }
                }
                self.seen += 1;
            }
            walk_stmt_mut(self, stmt);
        }
    }
    let mut copy = module.clone();
    let mut loosen = Loosen { target, seen: 0, line: 0 };
    for func in &mut copy.functions {
        loosen.mutate_stmt(&mut func.body);
    }
    (copy, loosen.line)
}
