//! tirproof-filetests: the corpus filetest engine. One TVMScript file is one test, run the
//! same way by `tirproof corpus` (the main job) and by `cargo test` (tests/filetests.rs).
//!
//! A case starts with a header of directive comments, then the program:
//!
//! ```text
//! # test: print            the kind of test (see `Kind`)
//! # check: B[i % 2]        text the printed output must contain, in this order
//! # error: 5:9: error: ... a diagnostic the file must produce (all of them, in order)
//! # passes: cse          the passes a `pass` / `pass-error` case runs (default: the pipeline)
//! # run: lazy -> ok       an interpreter run and its expected result (see `run`)
//! # oracles: equivalence  the fuzzers' oracles a `fuzz` case runs (default: all but gpu)
//! # seed: 33891           the seed of a `fuzz` case's chain (schedule, inputs, mutated wait)
//! # ptx: cp.async.wait_group 1   text the program's PTX must contain, in this order (any kind)
//! # tvm: racy:read-pending-async   the class of TVM's failure of a `tvm-finding` case
//! # peer: tvm-lower      which of TVM's passes a `tvm-finding` case runs (default: tvm)
//! ```
//!
//! Line numbers in diagnostics count from the top of the file, header included. With
//! `bless`, a case whose expectation can be regenerated (printed text, error lines) is
//! rewritten in place, atomically, instead of failing. Passes run through the pass manager,
//! with the checker after every pass; the differential comparison is `tirproof_exec::compare`.

mod fuzz;
mod pipeline;
mod ptx;
mod run;
mod text;
mod tvm;

pub use pipeline::EXPECTED_MARKER;

use std::path::{Path, PathBuf};

use tirproof_exec::compare;
use tirproof_ir::Diagnostics;

/// What a case checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The program is exactly what the printer prints for it (and re-parses to an equal module).
    Print,
    /// The program parses and checks; printing and re-parsing gives a structurally equal module.
    Roundtrip,
    /// Parsing or checking reports exactly the `# error:` diagnostics.
    Error,
    /// The `# passes:` (default: the pipeline pass) succeed; the output checks, round-trips,
    /// computes what the input computes under every schedule, and equals the expected output.
    Pipeline,
    /// The `# passes:` refuse the program with exactly the `# error:` diagnostics.
    PassError,
    /// The interpreter's results match the `# run:` lines.
    Run,
    /// The fuzzers' oracle chain (the `# oracles:`, default all but gpu) passes: regressions found by
    /// the fuzzers live in `corpus/regressions/` as these.
    Fuzz,
    /// A bug of TVM's pipeline pass (`# tvm:` its class), with TVM's output: tirproof's pass
    /// is proved on the program, TVM's output fails as recorded (`tvm.rs`).
    TvmFinding,
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        match name {
            "print" => Some(Kind::Print),
            "roundtrip" => Some(Kind::Roundtrip),
            "error" => Some(Kind::Error),
            "pipeline" | "pass" => Some(Kind::Pipeline),
            "pass-error" => Some(Kind::PassError),
            "run" => Some(Kind::Run),
            "fuzz" => Some(Kind::Fuzz),
            "tvm-finding" => Some(Kind::TvmFinding),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Print => "print",
            Kind::Roundtrip => "roundtrip",
            Kind::Error => "error",
            Kind::Pipeline => "pipeline",
            Kind::PassError => "pass-error",
            Kind::Run => "run",
            Kind::Fuzz => "fuzz",
            Kind::TvmFinding => "tvm-finding",
        }
    }
}

/// Directive keys a header line may use.
const DIRECTIVES: [&str; 11] =
    ["test", "check", "error", "desc", "passes", "run", "oracles", "seed", "ptx", "tvm", "peer"];

/// A parsed case file.
#[derive(Clone, Debug)]
pub struct Case {
    pub path: PathBuf,
    pub kind: Kind,
    /// The full file text (diagnostics are located against it).
    pub text: String,
    /// The header lines, verbatim.
    pub header: Vec<String>,
    /// `# check:` values, in order.
    pub checks: Vec<String>,
    /// `# error:` values, in order.
    pub errors: Vec<String>,
    /// `# passes: a,b` for the pass kinds (default: the pipeline pass).
    pub passes: Vec<String>,
    /// `# run:` lines, in order (see `run`).
    pub runs: Vec<String>,
    /// `# oracles: a,b` for `fuzz` cases (empty: all but gpu).
    pub oracles: Vec<String>,
    /// `# seed: N` for `fuzz` cases (default 0).
    pub seed: u64,
    /// `# ptx:` values, in order (see `ptx`).
    pub ptx_checks: Vec<String>,
    /// `# tvm: CLASS` of a `tvm-finding` case.
    pub tvm_class: Option<String>,
    /// `# peer: tvm-lower` of a `tvm-finding` case found with TVM's lowering too.
    pub peer: Option<String>,
}

/// How a case went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Passed, with what the verifier said about the program's (or the output's) waits.
    Proved(tirproof_verify::waits::Tally),
    Fail(String),
    /// The expectation was rewritten (bless mode).
    Blessed,
}

impl Case {
    pub fn load(path: &Path) -> Result<Case, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Case::from_text(path, text)
    }

    pub fn from_text(path: &Path, text: String) -> Result<Case, String> {
        let mut header = Vec::new();
        let (mut kind, mut checks, mut errors) = (None, Vec::new(), Vec::new());
        let mut passes = vec!["inject-software-pipeline".to_string()];
        let mut runs = Vec::new();
        let mut oracles = Vec::new();
        let mut seed = 0;
        let mut ptx_checks = Vec::new();
        let mut tvm_class = None;
        let mut peer = None;
        for line in text.lines() {
            let Some((key, value)) = directive(line) else { break };
            header.push(line.to_string());
            match key {
                "test" => kind = Some(Kind::from_name(value).ok_or_else(|| format!("unknown test kind `{value}`"))?),
                "check" => checks.push(value.to_string()),
                "error" => errors.push(value.to_string()),
                "run" => runs.push(value.to_string()),
                "ptx" => ptx_checks.push(value.to_string()),
                "tvm" => tvm_class = Some(value.to_string()),
                "peer" => peer = Some(value.to_string()),
                "oracles" => oracles = value.split(',').map(|p| p.trim().to_string()).collect(),
                "passes" => passes = value.split(',').map(|p| p.trim().to_string()).collect(),
                "seed" => seed = value.trim().parse().map_err(|_| format!("`# seed: {value}` is not a number"))?,
                _ => {}
            }
        }
        let kind = kind.ok_or_else(|| format!("{}: missing `# test: KIND` header line", path.display()))?;
        Ok(Case {
            path: path.to_path_buf(),
            kind,
            text,
            header,
            checks,
            errors,
            passes,
            runs,
            oracles,
            seed,
            ptx_checks,
            tvm_class,
            peer,
        })
    }

    /// The program after the header, without leading blank lines.
    pub fn body(&self) -> &str {
        let mut rest = self.text.as_str();
        for _ in 0..self.header.len() {
            rest = rest.split_once('\n').map_or("", |(_, tail)| tail);
        }
        rest.trim_start_matches(['\n', '\r'])
    }

    /// Renders diagnostics against the case's file.
    fn render(&self, diags: &Diagnostics) -> String {
        diags.render(&self.path.display().to_string(), &self.text)
    }

    pub fn run(&self, bless: bool) -> Verdict {
        let verdict = match self.kind {
            Kind::Print => text::run_print(self, bless),
            Kind::Roundtrip => text::run_roundtrip(self),
            Kind::Error => text::run_error(self, bless),
            Kind::Pipeline => pipeline::run_pipeline(self, bless),
            Kind::PassError => pipeline::run_pass_error(self, bless),
            Kind::Run => run::run_run(self, bless),
            Kind::Fuzz => fuzz::run_fuzz(self),
            Kind::TvmFinding => tvm::run_tvm_finding(self),
        };
        ptx::check(self, verdict)
    }

    /// Rewrites the file as `header` + blank line + `body`, atomically.
    fn rewrite(&self, header: &[String], body: &str) -> Verdict {
        let mut out = header.join("\n");
        out.push_str("\n\n");
        out.push_str(body);
        let tmp = self.path.with_extension("py.bless-tmp");
        let written = std::fs::write(&tmp, out).and_then(|()| std::fs::rename(&tmp, &self.path));
        match written {
            Ok(()) => Verdict::Blessed,
            Err(e) => Verdict::Fail(format!("cannot rewrite {}: {e}", self.path.display())),
        }
    }
}

/// `# key: value` for a known directive key.
fn directive(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let (key, value) = rest.split_once(':')?;
    DIRECTIVES.contains(&key).then(|| (key, value.trim()))
}

/// Runs one file; a file that cannot be loaded fails. In bless mode a rewritten case is run
/// again until it passes, because adding `# error:` lines moves the program down.
pub fn run_file(path: &Path, bless: bool) -> Verdict {
    let mut blessed = false;
    for _ in 0..4 {
        let verdict = match Case::load(path) {
            Ok(case) => case.run(bless),
            Err(e) => Verdict::Fail(e),
        };
        match verdict {
            Verdict::Blessed => blessed = true,
            Verdict::Pass | Verdict::Proved(_) if blessed => return Verdict::Blessed,
            other => return other,
        }
    }
    Verdict::Fail("the expectations do not settle after blessing".to_string())
}

/// Whether `BLESS=1` asks for expectations to be rewritten.
pub fn bless_requested() -> bool {
    std::env::var("BLESS").is_ok_and(|v| v == "1")
}
