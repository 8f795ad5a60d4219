//! tirproof-passes: transformations of TIR modules.
//!
//! Every pass implements `FunctionPass` (one function at a time; the blanket `Pass` impl runs
//! it over a module, gathering notes, limits hit and errors) and is registered by name in `registry`; the CLI, the corpus
//! and the fuzzers run pipelines of them through `manager::PassManager` (the checker after
//! every pass, timing, a hook for validation), so they run passes the same way. A pass either
//! rewrites the module or returns located diagnostics; it never panics on a well-formed module
//! and never prints.

pub mod cse;
pub mod flatten_buffer;
pub mod fold;
pub mod lower_opaque_block;
pub mod manager;
pub mod pipeline;
mod provenance;
pub mod stop;
pub mod strip_tokens;
pub mod tokens;
pub mod vector_type_rewrite;
pub mod vectorize;

pub use manager::{AfterPass, PassManager, PassRecord, PipelineError, UnknownPass};

use tirproof_ir::{Diagnostic, Diagnostics, IRModule, PrimFunc};

use crate::stop::{Limit, Stopped};

/// Why a pass refused a module.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{diagnostics}")]
pub struct PassError {
    pub diagnostics: Diagnostics,
}

impl From<Diagnostics> for PassError {
    fn from(diagnostics: Diagnostics) -> Self {
        PassError { diagnostics }
    }
}

/// What a pass did to a module: its notes for `--explain` (why a loop stayed serial, which
/// access was left alone) and the functions whose search it cut short.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    pub notes: Vec<String>,
    pub stopped: Vec<Stopped>,
}

/// A module-to-module transformation.
pub trait Pass {
    /// The name used on the command line (`--passes NAME`).
    fn name(&self) -> &'static str;
    /// One line for `--help` and the registry listing.
    fn description(&self) -> &'static str;
    /// Runs the pass and says what it did.
    fn run_reported(&self, module: &mut IRModule) -> Result<PassReport, PassError>;
    fn run(&self, module: &mut IRModule) -> Result<(), PassError> {
        self.run_reported(module).map(|_| ())
    }
    /// Runs the pass and returns its notes.
    fn run_explained(&self, module: &mut IRModule) -> Result<Vec<String>, PassError> {
        self.run_reported(module).map(|report| report.notes)
    }
}

/// What a pass did to one function: its notes, and the limit its search stopped at, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionReport {
    pub notes: Vec<String>,
    pub stopped: Option<Limit>,
}

impl FunctionReport {
    /// No notes when `errors` is empty, else the errors.
    pub fn unless(errors: Vec<Diagnostic>) -> Result<FunctionReport, Vec<Diagnostic>> {
        if errors.is_empty() {
            Ok(FunctionReport::default())
        } else {
            Err(errors)
        }
    }

    /// These notes.
    pub fn notes(notes: Vec<String>) -> FunctionReport {
        FunctionReport { notes, stopped: None }
    }
}

/// A pass that transforms each function on its own; every such pass is a `Pass` through the
/// blanket impl, which runs it on every function (after an error too, so all errors are
/// reported, sorted) and gathers the notes in function order.
pub trait FunctionPass {
    /// The name used on the command line (`--passes NAME`).
    const NAME: &'static str;
    /// One line for `--help` and the registry listing.
    const DESCRIPTION: &'static str;
    /// Transforms `func`, or says why it cannot.
    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>>;
}

impl<P: FunctionPass> Pass for P {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn description(&self) -> &'static str {
        P::DESCRIPTION
    }

    fn run_reported(&self, module: &mut IRModule) -> Result<PassReport, PassError> {
        let mut report = PassReport::default();
        let mut errors = Diagnostics::new();
        for func in &mut module.functions {
            match self.run_on_function(func) {
                Ok(FunctionReport { mut notes, stopped }) => {
                    report.notes.append(&mut notes);
                    report.stopped.extend(stopped.map(|limit| Stopped { function: func.name.clone(), limit }));
                }
                Err(diagnostics) => diagnostics.into_iter().for_each(|d| errors.push(d)),
            }
        }
        if errors.is_empty() {
            Ok(report)
        } else {
            errors.sort();
            Err(errors.into())
        }
    }
}

/// Every registered pass, in a stable order.
pub fn registry() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(pipeline::InjectSoftwarePipeline),
        Box::new(pipeline::InjectSoftwarePipelineTokens),
        Box::new(strip_tokens::StripAsyncTokens),
        Box::new(lower_opaque_block::LowerOpaqueBlock),
        Box::new(flatten_buffer::FlattenBuffer),
        Box::new(vectorize::VectorizeLoop),
        Box::new(vector_type_rewrite::VectorTypeRewrite),
        Box::new(cse::Cse),
        Box::new(cse::CseSemantic),
        Box::new(tokens::LowerAsyncTokens),
        Box::new(pipeline::PlantedBugPipeline),
    ]
}

/// The pass registered under `name`.
pub fn lookup(name: &str) -> Option<Box<dyn Pass>> {
    registry().into_iter().find(|p| p.name() == name)
}
