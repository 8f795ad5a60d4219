//! The verifier and the lazy interpreter agree: a program whose waits are all proved runs
//! without a fault under the lazy schedule, and a program with a refuted obligation faults —
//! on every corpus program with async scopes, on the pipeline pass's output for generated
//! loops, and on mutants of correct programs (a wait loosened by one or two, a wait dropped,
//! a commit moved, two statements swapped): the verifier must refute every mutant the
//! interpreter shows to be faulty.
//!
//! 300 generated programs by default; `TIRPROOF_PROPTEST_CASES` for more.

use std::collections::BTreeMap;
use std::path::Path;

use arbitrary::Unstructured;
use tirproof::compare::SCALAR_VALUES;
use tirproof_fuzz::gen::{pipeline_program, GenConfig};
use tirproof_interp::{random_inputs, run, RunConfig, ScalarValue};
use tirproof_ir::annotation::{ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE};
use tirproof_ir::print::print_module;
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Expr, IRModule, PrimFunc, Stmt, StmtKind};
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::PassManager;
use tirproof_reader::parse_module;
use tirproof_verify::waits::{verify_func, Options, WaitCount, WaitVerdict};

/// Does `func` fault under the lazy schedule for some value of its integer parameters?
/// (Any fault; `async_faults` keeps only those the verifier is about.)
fn faults(func: &PrimFunc) -> Option<String> {
    faults_where(func, |_| true)
}

/// Faults of the async protocol: pending reads and writes, cross-thread visibility, negative
/// counts, groups left in flight.
fn async_faults(func: &PrimFunc) -> Option<String> {
    use tirproof_interp::FaultKind::*;
    faults_where(func, |k| {
        matches!(k, ReadPendingAsync | WritePendingAsync | CrossThreadRace | NegativeWait | UnwaitedGroup)
    })
}

fn faults_where(func: &PrimFunc, keep: impl Fn(tirproof_interp::FaultKind) -> bool) -> Option<String> {
    faults_at(func, &[], keep)
}

/// [`faults_where`], trying the parameter values `more` too (a corpus case's own).
fn faults_at(func: &PrimFunc, more: &[i64], keep: impl Fn(tirproof_interp::FaultKind) -> bool) -> Option<String> {
    let ints: Vec<String> =
        func.scalar_params().filter(|v| v.dtype().is_integer()).map(|v| v.name().to_string()).collect();
    let assignments: Vec<BTreeMap<String, ScalarValue>> = if ints.is_empty() {
        vec![BTreeMap::new()]
    } else {
        SCALAR_VALUES
            .iter()
            .chain(more)
            .map(|&n| ints.iter().map(|p| (p.clone(), ScalarValue::Int(n))).collect())
            .collect()
    };
    for scalars in assignments {
        let inputs = random_inputs(func, 0, &scalars).ok()?;
        for order in [None, Some(1)] {
            let config = RunConfig { thread_order_seed: order, ..RunConfig::default() };
            if let Ok(result) = run(func, &inputs, &config) {
                if let Some(f) = result.outcome.fault().filter(|f| keep(f.kind)) {
                    return Some(format!("{f} (scalars {scalars:?})"));
                }
            }
        }
    }
    None
}

fn proved(func: &PrimFunc) -> (bool, String) {
    proved_within(func, 20)
}

/// Verified within `seconds` per query (an unknown is not a proof).
fn proved_within(func: &PrimFunc, seconds: u64) -> (bool, String) {
    // Agreement is about safety; tightness has its own tests.
    let options = Options { tightness: false, timeout: std::time::Duration::from_secs(seconds), ..Options::default() };
    let (report, _) = verify_func(func, &options);
    let text = report
        .waits
        .iter()
        .map(ToString::to_string)
        .chain(report.findings.iter().map(|f| f.message.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    (report.all_proved(), text)
}

fn has_async(module: &IRModule) -> bool {
    print_module(module).contains("async_")
}

fn corpus_modules(dirs: &[&str]) -> Vec<(String, IRModule)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out = Vec::new();
    for dir in dirs {
        let mut files: Vec<_> =
            std::fs::read_dir(root.join(dir)).expect("corpus dir").map(|e| e.expect("entry").path()).collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("readable");
            if let Ok(module) = parse_module(&text) {
                out.push((path.display().to_string(), module));
            }
        }
    }
    out
}

#[test]
fn verifier_and_interpreter_agree_on_the_corpus() {
    let mut checked = 0;
    for (name, module) in corpus_modules(&["tvm", "rfc", "faults", "tokens"]) {
        if !has_async(&module) {
            continue;
        }
        for func in &module.functions {
            let (ok, text) = proved(func);
            let fault = faults(func);
            assert_eq!(
                ok,
                fault.is_none(),
                "{name}: verifier says {}, interpreter says {fault:?}\n{text}",
                if ok { "proved" } else { "refuted" }
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} programs checked");
}

/// Cases of `corpus/verify` the verifier leaves undecided, and why.
const UNDECIDED: [&str; 0] = [];

/// The values a corpus case's `# run:` header gives its parameters (`n=70`).
fn header_values(path: &str) -> Vec<i64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.strip_prefix("# run:"))
        .flat_map(|l| l.split("->").next().unwrap_or("").split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .filter_map(|word| word.split_once('=').and_then(|(_, v)| v.parse().ok()))
        .collect()
}

/// Every class of `corpus/verify` (wrapping arithmetic, lets, lazy arms, inner-loop waits,
/// data conditions, blocks) has a clean and a faulting twin: the verifier proves exactly the
/// clean ones and refutes exactly the faulting ones, with or without async scopes.
#[test]
fn verifier_decides_the_verify_corpus_as_the_interpreter_runs_it() {
    let mut checked = 0;
    for (name, module) in corpus_modules(&["verify"]) {
        for func in &module.functions {
            let options = Options { tightness: false, ..Options::default() };
            let (report, _) = verify_func(func, &options);
            let refuted = !report.findings.is_empty()
                || report
                    .waits
                    .iter()
                    .any(|w| matches!(w.verdict, tirproof_verify::waits::WaitVerdict::Refuted { .. }));
            let fault = faults_at(func, &header_values(&name), |_| true);
            if UNDECIDED.iter().any(|u| name.ends_with(u)) {
                assert!(!report.all_proved(), "{name}: proved, but it is not decidable here");
                assert!(!refuted || fault.is_some(), "{name}: refuted, but the interpreter runs it clean");
                continue;
            }
            assert_eq!(
                report.all_proved(),
                fault.is_none(),
                "{name}: interpreter says {fault:?}, verifier:\n{report:?}"
            );
            assert_eq!(refuted, fault.is_some(), "{name}: interpreter says {fault:?}, verifier:\n{report:?}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} programs checked");
}

fn cases() -> usize {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

/// Deterministic pseudo-random bytes for the generator.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn verifier_proves_the_pass_output_and_refutes_faulty_mutants_of_generated_loops() {
    let mut mutants_checked = 0;
    for seed in 0..cases() as u64 {
        let data = bytes(seed, 160);
        let mut u = Unstructured::new(&data);
        // Symbolic extents multiply the peeled copies (one per shorter extent); the corpus covers them.
        let config = GenConfig {
            predicates: false,
            threads: false,
            symbolic_extents: false,
            max_stmts: 4,
            ..GenConfig::accepted()
        };
        let (module, shape) = pipeline_program(&mut u, &config).expect("generation never fails");
        let mut output = module.clone();
        PassManager::single(InjectSoftwarePipeline).run(&mut output).expect("the pass accepts generated loops");
        let func = &output.functions[0];
        let (ok, text) = proved(func);
        assert!(ok, "seed {seed} {shape:?}: the pass output is not proved:\n{text}\n{}", print_module(&output));
        for mutant in mutants(func).into_iter().take(4) {
            if let Some(fault) = async_faults(&mutant) {
                let (ok, _) = proved_within(&mutant, 2);
                assert!(
                    !ok,
                    "seed {seed}: a mutant faults ({fault}) but is proved:\n{}",
                    tirproof_ir::print::print_func(&mutant)
                );
                mutants_checked += 1;
            }
        }
    }
    assert!(mutants_checked > 0);
}

#[test]
fn verifier_refutes_every_faulty_mutant_of_the_pipeline_corpus() {
    let mut checked = 0;
    for (name, module) in corpus_modules(&["pipeline"]) {
        let mut output = module.clone();
        PassManager::single(InjectSoftwarePipeline).run(&mut output).expect("corpus pipeline cases pass");
        for func in &output.functions {
            for mutant in mutants(func) {
                if let Some(fault) = async_faults(&mutant) {
                    let (ok, _) = proved(&mutant);
                    assert!(
                        !ok,
                        "{name}: a mutant faults ({fault}) but is proved:\n{}",
                        tirproof_ir::print::print_func(&mutant)
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 40, "only {checked} faulty mutants");
}

/// Mutants of a correct program: every wait loosened by 1 and 2, every wait dropped, every
/// commit moved onto its previous or next sibling, every pair of adjacent statements swapped.
fn mutants(func: &PrimFunc) -> Vec<PrimFunc> {
    let mut out = Vec::new();
    let sites = count(func);
    for k in 0..sites.waits {
        for m in [Mutation::Loosen(k, 1), Mutation::Loosen(k, 2), Mutation::Drop(k)] {
            out.push(mutate(func, m));
        }
    }
    for k in 0..sites.commits {
        out.push(mutate(func, Mutation::MoveCommit(k, -1)));
        out.push(mutate(func, Mutation::MoveCommit(k, 1)));
    }
    for k in 0..sites.seqs {
        out.push(mutate(func, Mutation::Swap(k)));
    }
    // Keep the test fast: every kind of mutation is represented, spread over the sites.
    let step = out.len().div_ceil(24).max(1);
    out.into_iter().step_by(step).collect()
}

#[derive(Clone, Copy)]
enum Mutation {
    Loosen(usize, i64),
    Drop(usize),
    MoveCommit(usize, i64),
    Swap(usize),
}

#[derive(Default)]
struct Sites {
    waits: usize,
    commits: usize,
    seqs: usize,
}

fn count(func: &PrimFunc) -> Sites {
    let mut m = Mutator { target: None, sites: Sites::default() };
    let mut body = func.body.clone();
    m.mutate_stmt(&mut body);
    m.sites
}

fn mutate(func: &PrimFunc, mutation: Mutation) -> PrimFunc {
    let mut out = func.clone();
    let mut m = Mutator { target: Some(mutation), sites: Sites::default() };
    m.mutate_stmt(&mut out.body);
    out
}

struct Mutator {
    target: Option<Mutation>,
    sites: Sites,
}

impl MutVisitor for Mutator {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if let StmtKind::Attr(a) = &mut stmt.kind {
            if a.key == ASYNC_WAIT_QUEUE_SCOPE {
                let k = self.sites.waits;
                self.sites.waits += 1;
                match self.target {
                    Some(Mutation::Loosen(t, by)) if t == k => {
                        if let StmtKind::Attr(c) = &mut a.body.kind {
                            if c.key == ASYNC_WAIT_INFLIGHT_COUNT {
                                c.value = c.value.clone() + Expr::int(by);
                            }
                        }
                    }
                    Some(Mutation::Drop(t)) if t == k => {
                        let inner = match &a.body.kind {
                            StmtKind::Attr(c) if c.key == ASYNC_WAIT_INFLIGHT_COUNT => (*c.body).clone(),
                            _ => (*a.body).clone(),
                        };
                        *stmt = inner;
                        return self.mutate_stmt(stmt);
                    }
                    _ => {}
                }
            }
        }
        if let StmtKind::Seq(items) = &mut stmt.kind {
            self.seq(items);
        }
        walk_stmt_mut(self, stmt);
    }
}

impl Mutator {
    fn seq(&mut self, items: &mut [Stmt]) {
        for i in 0..items.len() {
            if is_commit(&items[i]) {
                let k = self.sites.commits;
                self.sites.commits += 1;
                if let Some(Mutation::MoveCommit(t, dir)) = self.target {
                    let j = i as i64 + dir;
                    if t == k && j >= 0 && (j as usize) < items.len() {
                        move_commit(items, i, j as usize);
                        self.target = None;
                    }
                }
            }
        }
        if items.len() >= 2 {
            for i in 0..items.len() - 1 {
                let k = self.sites.seqs;
                self.sites.seqs += 1;
                if matches!(self.target, Some(Mutation::Swap(t)) if t == k) {
                    items.swap(i, i + 1);
                    self.target = None;
                }
            }
        }
    }
}

fn is_commit(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Attr(a) if a.key == ASYNC_COMMIT_QUEUE_SCOPE)
}

/// Moves the commit scope of `items[from]` onto `items[to]` (its body stays in place).
fn move_commit(items: &mut [Stmt], from: usize, to: usize) {
    let StmtKind::Attr(a) = items[from].kind.clone() else { return };
    items[from] = (*a.body).clone();
    let target = items[to].clone();
    items[to] = Stmt::new(StmtKind::Attr(tirproof_ir::AttrStmt { body: Box::new(target), ..a }), items[to].span);
}

/// With the pass's provenance the verifier checks data flow: a consumer that reads the other
/// version of a double-buffered staging buffer is refuted (as a data-flow error, besides the
/// pending copy it now reads).
#[test]
fn data_flow_is_checked_with_the_pass_provenance() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pipeline/rfc_a_async.py");
    check_data_flow(&std::fs::read_to_string(path).expect("readable"));
}

/// The same pipeline inside a loop the pass leaves alone: that loop's iterations order the
/// accesses first (the regression `pipeline_inside_a_plain_loop_keeps_its_order.py` is the
/// false report this used to give), and a reordered read is still refuted.
#[test]
fn data_flow_inside_a_plain_loop_orders_its_iterations_first() {
    check_data_flow(
        r#"# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for t in range(2):
        for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
            B = T.alloc_buffer((1,), "float32", scope="shared")
            B[0] = A[i] + T.float32(1.0)
            C[i] = B[0] + T.float32(1.0)
"#,
    );
}

/// The pass's output of `source` is proved with data flow checked; reading the other version
/// of `B` is refuted as a data-flow error; from text, data flow is not checked.
fn check_data_flow(source: &str) {
    let module = parse_module(source).expect("parses");
    let mut output = module.clone();
    PassManager::single(InjectSoftwarePipeline).run(&mut output).expect("pipelines");
    let func = &output.functions[0];
    let (report, _) = verify_func(func, &Options::default());
    assert!(report.all_proved() && report.notes.iter().any(|n| n.contains("data flow checked")), "{report:?}");

    let mut wrong = func.clone();
    OtherVersion.mutate_stmt(&mut wrong.body);
    let (report, _) = verify_func(&wrong, &Options::default());
    assert!(report.findings.iter().any(|f| f.message.starts_with("data flow")), "{report:?}");

    // From text there is no provenance: only race freedom is checked, and the report says so.
    let reparsed = parse_module(&tirproof_ir::print::print_func(&wrong)).expect("parses");
    let (report, _) = verify_func(&reparsed.functions[0], &Options::default());
    assert!(report.notes.iter().any(|n| n.contains("data flow is not checked")));
}

/// Reads `B[(x + 1) % 2, ...]` where the program reads `B[x % 2, ...]`.
struct OtherVersion;

impl MutVisitor for OtherVersion {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        if let Expr::Load(load) = expr {
            if load.buffer.name() == "B" {
                if let Some(Expr::Binary { op: tirproof_ir::BinOp::FloorMod, lhs, .. }) = load.indices.first_mut() {
                    **lhs = (**lhs).clone() + Expr::int(1);
                }
            }
        }
        tirproof_ir::visit::walk_expr_mut(self, expr);
    }
}

/// A refutation of a program with a symbolic extent names the extent; the interpreter run at
/// that extent faults.
#[test]
fn counterexamples_replay_in_the_interpreter() {
    let mut replayed = 0;
    for name in ["symbolic_extent.py", "symbolic_extent_three_stages.py"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pipeline").join(name);
        let module = parse_module(&std::fs::read_to_string(path).expect("readable")).expect("parses");
        let mut output = module.clone();
        PassManager::single(InjectSoftwarePipeline).run(&mut output).expect("pipelines");
        let func = &output.functions[0];
        for k in 0..count(func).waits {
            let mutant = mutate(func, Mutation::Loosen(k, 1));
            let (report, _) = verify_func(&mutant, &Options { tightness: false, ..Options::default() });
            let values = report
                .waits
                .iter()
                .find_map(|w| match &w.verdict {
                    tirproof_verify::waits::WaitVerdict::Refuted { values, .. } => Some(values.clone()),
                    _ => None,
                })
                .or_else(|| report.findings.first().map(|f| f.values.clone()));
            let Some(values) = values else { continue };
            let Some(n) = values.get("n") else { continue };
            let scalars = BTreeMap::from([("n".to_string(), ScalarValue::Int(n))]);
            let inputs = random_inputs(&mutant, 0, &scalars).expect("inputs");
            let result = run(&mutant, &inputs, &RunConfig::default()).expect("runs");
            assert!(
                result.outcome.fault().is_some(),
                "{name}, wait #{k}: refuted at n = {n}, but the interpreter completes"
            );
            replayed += 1;
        }
    }
    assert!(replayed >= 3, "only {replayed} counterexamples replayed");
}

/// One statement of a generated straight-line program (see [`straight_line_program`]).
#[derive(Clone, Copy)]
enum Piece {
    /// A commit of the stores of elements `first` and `second` (one when equal).
    Commit { first: u8, second: u8 },
    /// A wait with this in-flight count, guarding a read of element `read`; inside a loop of
    /// two iterations when `looped` (a point that is not straight-line), which commits a store
    /// of element `committed` before the wait when it is set (a pipelined body: the commits
    /// of an iteration before its wait are what one covering wait is credited with).
    Wait { count: u8, read: u8, looped: bool, committed: Option<u8> },
    /// A read of element `read` under no wait.
    Read { read: u8 },
}

const STRAIGHT_ELEMENTS: u8 = 6;

/// Pieces drawn from `data`: commits, waits with reads and bare reads in any order, on few
/// elements (so stores overwrite elements that are still in flight) and small counts (so
/// covers, ties and over-synchronized waits all occur); a final full wait unless the last
/// byte says otherwise (so undrained groups occur too).
fn straight_line_pieces(data: &[u8]) -> (Vec<Piece>, bool) {
    let pieces = data
        .chunks_exact(3)
        .map(|c| match c[0] % 16 {
            0..=6 => Piece::Commit { first: c[1] % STRAIGHT_ELEMENTS, second: c[2] % STRAIGHT_ELEMENTS },
            // Mostly full waits, so that many programs are safe and have waits to measure.
            7..=14 => Piece::Wait {
                count: [0, 0, 0, 1, 2, 3][usize::from(c[1] % 6)],
                read: c[2] % STRAIGHT_ELEMENTS,
                looped: c[1] % 5 == 0,
                committed: (c[0] % 2 == 0).then_some(c[1] / 7 % STRAIGHT_ELEMENTS),
            },
            _ => Piece::Read { read: c[2] % STRAIGHT_ELEMENTS },
        })
        .collect();
    (pieces, data.last().is_some_and(|b| b % 5 != 0))
}

/// The program of `pieces`: `S` is written synchronously first (no read sees it unwritten),
/// then the pieces, then (if `drain`) a wait for every group.
fn straight_line_program(pieces: &[Piece], drain: bool) -> String {
    let n = STRAIGHT_ELEMENTS;
    let mut text = format!(
        "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer(({n},), \"float32\"), C: T.Buffer(({n},), \"float32\")):\n    S = T.alloc_buffer(({n},), \"float32\", scope=\"shared\")\n    for k in range({n}):\n        S[k] = T.float32(0)\n"
    );
    for piece in pieces {
        match *piece {
            Piece::Commit { first, second } => {
                text += "    with T.attr({\"async_commit_queue_scope\": 0, \"async_scope\": 1}):\n";
                text += &format!("        S[{first}] = A[{first}]\n");
                if second != first {
                    text += &format!("        S[{second}] = A[{second}]\n");
                }
            }
            Piece::Wait { count, read, looped, committed } => {
                let indent = if looped { "        " } else { "    " };
                if looped {
                    text += "    for t in range(2):\n";
                    if let Some(e) = committed {
                        text += "        with T.attr({\"async_commit_queue_scope\": 0, \"async_scope\": 1}):\n";
                        text += &format!("            S[{e}] = A[{e}]\n");
                    }
                }
                text += &format!(
                    "{indent}with T.attr({{\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": {count}}}):\n"
                );
                text += &format!("{indent}    C[{read}] = S[{read}]\n");
            }
            Piece::Read { read } => text += &format!("    C[{read}] = S[{read}]\n"),
        }
    }
    if drain {
        text += "    with T.attr({\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}):\n        T.evaluate(0)\n";
    }
    text
}

/// The program of `pieces` with the count of its `k`-th wait (in program order, the final
/// drain last) replaced by `count`.
fn with_count(pieces: &[Piece], drain: bool, k: usize, count: i64) -> PrimFunc {
    let mut text = straight_line_program(pieces, drain);
    let marker = "\"async_wait_inflight_count\": ";
    let at = text.match_indices(marker).nth(k).map(|(i, _)| i + marker.len()).expect("the k-th wait");
    let end = at + text[at..].find('}').expect("the attribute's end");
    text.replace_range(at..end, &count.to_string());
    parse_module(&text).expect("generated programs parse").functions.remove(0)
}

/// On generated straight-line programs with many waits (where a use's completed count comes
/// from the two nearest waits that surely run before it, not from every wait before it), the
/// verifier agrees with the interpreter on safety, and every tightness verdict is what running
/// the program with that wait's count changed shows: a tight wait faults one count up, an
/// over-synchronized wait is safe at its best count and faults one above, a wait that is not
/// needed is safe at any count.
#[test]
fn straight_line_verdicts_and_tightness_agree_with_the_interpreter() {
    let mut tightness_checked = 0;
    for seed in 0..(cases() as u64 * 3).max(1000) {
        let data = bytes(seed ^ 0x5eed, 3 * (8 + (seed % 17) as usize) + 1);
        let (pieces, drain) = straight_line_pieces(&data);
        let text = straight_line_program(&pieces, drain);
        let func = parse_module(&text).expect("generated programs parse").functions.remove(0);
        let options = Options { timeout: std::time::Duration::from_secs(20), ..Options::default() };
        let (report, _) = verify_func(&func, &options);
        assert!(report.unknown.is_empty(), "seed {seed}: undecided: {:?}\n{text}", report.unknown);
        let fault = async_faults(&func);
        assert_eq!(report.all_proved(), fault.is_none(), "seed {seed}: {report:?} against {fault:?}\n{text}");
        if fault.is_some() {
            continue;
        }
        for (k, wait) in report.waits.iter().enumerate() {
            let WaitCount::Constant(count) = wait.count else { continue };
            let faults_at = |c: i64| async_faults(&with_count(&pieces, drain, k, c)).is_some();
            match &wait.verdict {
                WaitVerdict::ProvedTight => {
                    assert!(faults_at(count + 1), "seed {seed}: wait {k} is tight, but one more is safe\n{text}")
                }
                WaitVerdict::ProvedOverSynchronized { best: None, .. } => {
                    assert!(!faults_at(count + 100), "seed {seed}: wait {k} is not needed, but faults\n{text}")
                }
                WaitVerdict::ProvedOverSynchronized { best: Some(WaitCount::Constant(best)), by } => {
                    assert!(!faults_at(*best), "seed {seed}: wait {k} is said safe at {best}\n{text}");
                    if *by != Some(64) {
                        assert!(faults_at(best + 1), "seed {seed}: wait {k} is safe above its best {best}\n{text}");
                    }
                }
                other => panic!("seed {seed}: wait {k}: {other:?}\n{text}"),
            }
            tightness_checked += 1;
        }
    }
    assert!(tightness_checked > 100, "only {tightness_checked} tightness verdicts checked");
}
