//! MLIR as a peer: MLIR's shared-memory copy pipeliner
//! (`transform.nvgpu.pipeline_shared_memory_copies` of mlir-opt 22) on generated nvgpu copy
//! loops, its output read back by tirproof's nvgpu reader and judged by the wait verifier.
//!
//! [`gen`] makes unpipelined loops and the pipeliner's options, [`run`] runs mlir-opt on them
//! under a time limit, [`judge`] classes the answer ([`MlirClass`], a closed set) and keys it
//! for deduplication ([`DedupKey`]), [`reduce`] shrinks a case while its key holds, and
//! [`reproduction`] writes the shell commands that show a finding with mlir-opt alone.
//! [`check`] is the whole chain for one case; a missing mlir-opt, one of another LLVM, or an
//! input that does not verify safe is a [`Skip`] with the reason, not an outcome.
//!
//! Invariants: nothing here panics on what mlir-opt answers or blocks past
//! [`run::RUN_LIMIT`]; every outcome judged on an output comes from an input that verified
//! safe, so what is found is about the pipeliner (or, for [`MlirClass::OutputUnreadable`],
//! about tirproof's reader), never about the generator.

pub mod gen;
pub mod judge;
pub mod reduce;
pub mod run;

use std::fmt::Write as _;

pub use gen::{generate, Case, CopyLoop, PipelineOptions};
pub use judge::{judge, judge_input, DedupKey, InputNotSafe, MlirClass, MlirOutcome};
pub use run::{MlirError, MlirExit, MlirOpt, MlirReply, LLVM_MAJOR};

/// Why a case has no outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Skip {
    /// mlir-opt is missing, of another LLVM, or could not be run.
    #[error(transparent)]
    Mlir(#[from] MlirError),
    /// The generator made an input that does not verify safe (its bug, not MLIR's).
    #[error(transparent)]
    InputNotSafe(#[from] InputNotSafe),
}

/// The input of `case` judged, MLIR's pipeliner run on it, and its answer judged.
pub fn check(case: &Case, mlir: &MlirOpt) -> Result<MlirOutcome, Skip> {
    judge_input(&case.program)?;
    let reply = mlir.pipeline(&case.program.to_mlir(), case.options, run::RUN_LIMIT)?;
    Ok(judge(case, &reply))
}

/// The key of `case`'s outcome, or `None` when it has none (a skip).
pub fn key_of(case: &Case, mlir: &MlirOpt) -> Option<DedupKey> {
    check(case, mlir).ok().map(|outcome| DedupKey::of(case, &outcome))
}

/// `case` shrunk while its outcome keeps the key `key` (see [`reduce::reduce`]).
pub fn reduce_keeping(case: &Case, key: &DedupKey, mlir: &MlirOpt) -> Case {
    reduce::reduce(case, |candidate| key_of(candidate, mlir).as_ref() == Some(key))
}

/// The file names a reproduction uses: the input, the transform script, mlir-opt's output.
pub const INPUT_FILE: &str = "input.mlir";
pub const TRANSFORM_FILE: &str = "transform.mlir";
pub const OUTPUT_FILE: &str = "mlir_output.mlir";

/// The commands, run where [`INPUT_FILE`] and [`TRANSFORM_FILE`] are, that run MLIR's
/// pipeliner with mlir-opt 22 alone (the command `scripts/foreign_nvgpu.sh` runs) and then
/// give tirproof's verdict on its output.
pub fn commands() -> String {
    let [preload, interpreter] = run::pipeline_arguments(std::path::Path::new(TRANSFORM_FILE));
    format!("mlir-opt {INPUT_FILE} {preload} {interpreter} > {OUTPUT_FILE}\ntirproof verify {OUTPUT_FILE}\n")
}

/// The shell commands that reproduce `program` under MLIR's pipeliner with `options` using
/// mlir-opt 22 alone: the input and the transform script written by heredocs, then
/// [`commands`].
pub fn reproduction(program: &CopyLoop, options: PipelineOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# MLIR's shared-memory copy pipeliner (mlir-opt {LLVM_MAJOR}) on a generated copy loop:");
    let _ = writeln!(
        out,
        "# depth {}, epilogue {}.",
        options.depth,
        if options.peel_epilogue { "peeled" } else { "kept in the loop" }
    );
    let _ = writeln!(out, "cat > {INPUT_FILE} <<'EOF'\n{}EOF", program.to_mlir());
    let _ = writeln!(out, "cat > {TRANSFORM_FILE} <<'EOF'\n{}EOF", options.transform_script());
    out.push_str(&commands());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reproduction_holds_the_program_the_script_and_the_command() {
        let case = generate(5);
        let text = reproduction(&case.program, case.options);
        assert!(text.contains(&case.program.to_mlir()), "{text}");
        assert!(text.contains(&case.options.transform_script()), "{text}");
        assert!(text.contains(&format!("depth = {}", case.options.depth)), "{text}");
        assert!(text.contains(
            "mlir-opt input.mlir --transform-preload-library=transform-library-paths=transform.mlir --transform-interpreter > mlir_output.mlir\ntirproof verify mlir_output.mlir\n"
        ));
        assert_eq!(text.matches("<<'EOF'").count(), 2);
        assert_eq!(text.lines().filter(|l| *l == "EOF").count(), 2);
    }
}
