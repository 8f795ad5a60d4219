//! tirproof-passes: transformations of TIR modules.
//!
//! Every pass implements `Pass` and is registered by name in `registry`; the CLI, the corpus
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
pub mod vector_type_rewrite;
pub mod vectorize;

pub use manager::{AfterPass, PassManager, PassRecord, PipelineError, UnknownPass};

use tirproof_ir::{Diagnostics, IRModule};

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

/// A module-to-module transformation.
pub trait Pass {
    /// The name used on the command line (`--passes NAME`).
    fn name(&self) -> &'static str;
    /// One line for `--help` and the registry listing.
    fn description(&self) -> &'static str;
    fn run(&self, module: &mut IRModule) -> Result<(), PassError>;
    /// Runs the pass and returns its notes for `--explain` (why a loop stayed serial, which
    /// access was left alone). Passes without notes keep this default.
    fn run_explained(&self, module: &mut IRModule) -> Result<Vec<String>, PassError> {
        self.run(module).map(|()| Vec::new())
    }
}

/// Every registered pass, in a stable order.
pub fn registry() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(pipeline::InjectSoftwarePipeline),
        Box::new(lower_opaque_block::LowerOpaqueBlock),
        Box::new(flatten_buffer::FlattenBuffer),
        Box::new(vectorize::VectorizeLoop),
        Box::new(vector_type_rewrite::VectorTypeRewrite),
        Box::new(cse::Cse),
        Box::new(cse::CseSemantic),
        Box::new(pipeline::PlantedBugPipeline),
    ]
}

/// The pass registered under `name`.
pub fn lookup(name: &str) -> Option<Box<dyn Pass>> {
    registry().into_iter().find(|p| p.name() == name)
}
