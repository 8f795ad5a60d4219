//! The pass manager: the one way to run a pipeline of passes over a module, shared by
//! `tirproof opt`, the corpus filetests and the fuzzers' oracle chain.
//!
//! A `PassManager` holds passes (registered names or values) and runs them in order. After
//! every pass the well-formedness checker runs on its output unless turned off
//! (`check_each(false)`), so a pass that breaks the module is caught at once and named. With
//! `timed(n)` each pass runs `n` times on copies of its input and keeps the last output; its
//! record holds every duration and their median. A hook (`AfterPass`) sees each pass's input
//! and output, so a caller can plug in a validation this crate cannot depend on (the CLI's CSE
//! translation validation by tirproof-verify).
//!
//! Invariants: every error names the pass it comes from; the hook is called once per pass that
//! succeeded and passed the checker, in pipeline order; the manager never prints.

use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use tirproof_ir::check::check_module;
use tirproof_ir::{Diagnostics, IRModule};

use crate::stop::Stopped;
use crate::{lookup, registry, Pass, PassError, PassReport};

/// A pass name that no registered pass has.
#[derive(Clone, Debug, thiserror::Error)]
#[error("unknown pass `{name}` (known passes: {})", .known.join(", "))]
pub struct UnknownPass {
    pub name: String,
    pub known: Vec<&'static str>,
}

/// Why a pipeline stopped; each variant names the pass.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PipelineError {
    /// The pass refused the module (its own located diagnostics).
    #[error("{}:\n{error}", self.headline())]
    Refused { pass: &'static str, error: PassError },
    /// The pass succeeded, but the checker rejects what it made.
    #[error("{}:\n{diagnostics}", self.headline())]
    Broken { pass: &'static str, diagnostics: Diagnostics },
}

impl PipelineError {
    /// Which pass failed, and how.
    pub fn headline(&self) -> String {
        match self {
            PipelineError::Refused { pass, .. } => format!("`{pass}` refuses the module"),
            PipelineError::Broken { pass, .. } => format!("the checker rejects the output of `{pass}`"),
        }
    }

    /// The headline and the diagnostics rendered against the source they point into.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        format!("{}:\n{}", self.headline(), self.diagnostics().render(file_name, source))
    }

    /// The pass that refused or broke the module.
    pub fn pass(&self) -> &'static str {
        match self {
            PipelineError::Refused { pass, .. } | PipelineError::Broken { pass, .. } => pass,
        }
    }

    /// The pass's diagnostics, or the checker's.
    pub fn diagnostics(&self) -> &Diagnostics {
        match self {
            PipelineError::Refused { error, .. } => &error.diagnostics,
            PipelineError::Broken { diagnostics, .. } => diagnostics,
        }
    }
}

/// What one pass did: its notes (`--explain`), the functions whose search it cut short and,
/// when timed, the duration of every run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassRecord {
    pub pass: &'static str,
    pub notes: Vec<String>,
    pub stopped: Vec<Stopped>,
    /// Empty unless the manager is timed.
    pub times: Vec<Duration>,
}

impl PassRecord {
    /// The median of the runs' durations (the upper one of an even count); `None` untimed.
    pub fn median(&self) -> Option<Duration> {
        let mut times = self.times.clone();
        times.sort();
        times.get(times.len() / 2).copied()
    }
}

/// Called after each pass that succeeded and passed the checker, with the module before and
/// after it.
pub trait AfterPass {
    fn after_pass(&mut self, record: &PassRecord, before: &IRModule, after: &IRModule);
}

impl<F: FnMut(&PassRecord, &IRModule, &IRModule)> AfterPass for F {
    fn after_pass(&mut self, record: &PassRecord, before: &IRModule, after: &IRModule) {
        self(record, before, after);
    }
}

/// A pipeline of passes and how to run it.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    check_each: bool,
    /// Runs per pass when timed.
    repeat: Option<NonZeroU32>,
}

impl PassManager {
    /// The passes, run in this order, with the checker after each and no timing.
    pub fn new(passes: Vec<Box<dyn Pass>>) -> PassManager {
        PassManager { passes, check_each: true, repeat: None }
    }

    /// One pass with the checker after it: how tests run a single pass.
    pub fn single(pass: impl Pass + 'static) -> PassManager {
        PassManager::new(vec![Box::new(pass)])
    }

    /// The registered passes of these names, in this order.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<PassManager, UnknownPass> {
        let passes = names
            .iter()
            .map(|name| {
                let name = name.as_ref().trim();
                lookup(name).ok_or_else(|| UnknownPass {
                    name: name.to_string(),
                    known: registry().iter().map(|p| p.name()).collect(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(PassManager::new(passes))
    }

    /// Whether the checker runs after every pass (on by default).
    pub fn check_each(mut self, on: bool) -> PassManager {
        self.check_each = on;
        self
    }

    /// Runs each pass `repeat` times on copies of its input and records the durations.
    pub fn timed(mut self, repeat: NonZeroU32) -> PassManager {
        self.repeat = Some(repeat);
        self
    }

    /// The passes, in pipeline order.
    pub fn passes(&self) -> impl Iterator<Item = &dyn Pass> {
        self.passes.iter().map(Box::as_ref)
    }

    /// Runs the pipeline on `module`; on success it holds the last pass's output, on failure
    /// the output of the pass that failed (or of the pass before, if that one refused).
    pub fn run(&self, module: &mut IRModule) -> Result<Vec<PassRecord>, PipelineError> {
        self.run_inner(module, None)
    }

    /// [`PassManager::run`], with `hook` called after each pass.
    pub fn run_with(&self, module: &mut IRModule, hook: &mut dyn AfterPass) -> Result<Vec<PassRecord>, PipelineError> {
        self.run_inner(module, Some(hook))
    }

    fn run_inner(
        &self,
        module: &mut IRModule,
        mut hook: Option<&mut dyn AfterPass>,
    ) -> Result<Vec<PassRecord>, PipelineError> {
        let mut records = Vec::with_capacity(self.passes.len());
        for pass in &self.passes {
            let before = hook.is_some().then(|| module.clone());
            let record = self.run_one(pass.as_ref(), module)?;
            if self.check_each {
                let diagnostics = check_module(module);
                if diagnostics.has_errors() {
                    return Err(PipelineError::Broken { pass: pass.name(), diagnostics });
                }
            }
            if let (Some(hook), Some(before)) = (hook.as_deref_mut(), &before) {
                hook.after_pass(&record, before, module);
            }
            records.push(record);
        }
        Ok(records)
    }

    /// Runs one pass (`repeat` times on copies when timed, keeping the last result).
    fn run_one(&self, pass: &dyn Pass, module: &mut IRModule) -> Result<PassRecord, PipelineError> {
        let refused = |error| PipelineError::Refused { pass: pass.name(), error };
        let Some(repeat) = self.repeat else {
            let PassReport { notes, stopped } = pass.run_reported(module).map_err(refused)?;
            return Ok(PassRecord { pass: pass.name(), notes, stopped, times: Vec::new() });
        };
        let mut times = Vec::with_capacity(repeat.get() as usize);
        let mut last = Ok((module.clone(), PassReport::default()));
        for _ in 0..repeat.get() {
            let mut copy = module.clone();
            let start = Instant::now();
            let outcome = pass.run_reported(&mut copy);
            times.push(start.elapsed());
            last = outcome.map(|report| (copy, report));
        }
        let (output, PassReport { notes, stopped }) = last.map_err(refused)?;
        *module = output;
        Ok(PassRecord { pass: pass.name(), notes, stopped, times })
    }
}

#[cfg(test)]
mod tests {
    use tirproof_ir::{DataType, Diagnostic, Expr, Span, Stmt, StmtKind, Var};

    use super::*;

    const PROGRAM: &str = r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1.0)
"#;

    fn module() -> IRModule {
        tirproof_reader::parse_module(PROGRAM).expect("the test program parses")
    }

    /// A pass that is a name and a function, for the tests of the manager itself.
    struct TestPass(&'static str, fn(&mut IRModule) -> Result<(), PassError>);

    impl Pass for TestPass {
        fn name(&self) -> &'static str {
            self.0
        }

        fn description(&self) -> &'static str {
            "a test pass"
        }

        fn run_reported(&self, module: &mut IRModule) -> Result<PassReport, PassError> {
            (self.1)(module).map(|()| PassReport::default())
        }
    }

    /// Appends a use of a variable nothing binds: the checker rejects the result.
    fn unbind(module: &mut IRModule) -> Result<(), PassError> {
        for func in &mut module.functions {
            let unbound = Stmt::synthetic(StmtKind::Evaluate(Expr::var(&Var::new("nowhere", DataType::INT32))));
            func.body = Stmt::seq(vec![func.body.clone(), unbound]);
        }
        Ok(())
    }

    fn refuse(_module: &mut IRModule) -> Result<(), PassError> {
        Err(Diagnostics::from(Diagnostic::error(Span::new(1, 1), "no")).into())
    }

    #[test]
    fn a_pass_that_breaks_the_module_is_caught_and_named() {
        let manager =
            PassManager::new(vec![Box::new(TestPass("unbinds", unbind)), Box::new(TestPass("refuses", refuse))]);
        let error = manager.run(&mut module()).expect_err("the checker rejects the output");
        assert!(matches!(error, PipelineError::Broken { pass: "unbinds", .. }), "{error}");
        assert!(error.to_string().starts_with("the checker rejects the output of `unbinds`"), "{error}");
        assert!(error.diagnostics().has_errors());
        // Without the checker the broken module reaches the next pass, which refuses it.
        let error = manager.check_each(false).run(&mut module()).expect_err("the second pass refuses");
        assert_eq!(error.pass(), "refuses");
    }

    #[test]
    fn passes_are_found_by_name_and_unknown_names_are_errors() {
        let manager = PassManager::from_names(&["cse", " flatten-buffer"]).expect("registered");
        assert_eq!(manager.passes().map(|p| p.name()).collect::<Vec<_>>(), vec!["cse", "flatten-buffer"]);
        let error = PassManager::from_names(&["cse", "no-such-pass"]).err().expect("unknown");
        assert!(error.to_string().starts_with("unknown pass `no-such-pass` (known passes: inject-software-pipeline"));
    }

    #[test]
    fn timing_records_every_run_and_the_median() {
        let repeat = NonZeroU32::new(5).expect("non-zero");
        let records = PassManager::from_names(&["cse", "flatten-buffer"])
            .expect("registered")
            .timed(repeat)
            .run(&mut module())
            .expect("runs");
        assert_eq!(records.len(), 2);
        for record in &records {
            assert_eq!(record.times.len(), 5);
            let median = record.median().expect("timed");
            assert!(record.times.iter().filter(|&&t| t <= median).count() >= 3);
            assert!(record.times.iter().filter(|&&t| t >= median).count() >= 3);
        }
        let untimed = PassManager::from_names(&["cse"]).expect("registered").run(&mut module()).expect("runs");
        assert_eq!(untimed[0].median(), None);
    }

    #[test]
    fn the_hook_sees_each_pass_with_its_input_and_output() {
        let mut seen = Vec::new();
        let mut hook = |record: &PassRecord, before: &IRModule, after: &IRModule| {
            seen.push((record.pass, before.clone(), after.clone()));
        };
        let mut module = module();
        let original = module.clone();
        let manager = PassManager::from_names(&["flatten-buffer", "cse"]).expect("registered");
        manager.run_with(&mut module, &mut hook).expect("runs");
        assert_eq!(seen.iter().map(|(pass, ..)| *pass).collect::<Vec<_>>(), vec!["flatten-buffer", "cse"]);
        assert_eq!(seen[0].1, original);
        assert_eq!(seen[0].2, seen[1].1, "each pass starts from the previous one's output");
        assert_eq!(seen[1].2, module);
    }
}
