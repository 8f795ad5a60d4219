//! The minimizer keeps the failure it was given: the same signature at the same statement. A
//! program with two pipelined loops that the planted bug breaks alike fails at the first loop's
//! consumer; removing that loop leaves the same signature at the second loop's consumer, a
//! failure moved to another statement, which the minimizer must not keep.

use std::time::Duration;

use tirproof_fuzz::oracle::{ChainConfig, InputMode, OracleName, PassVariant};
use tirproof_fuzz::reduce::{reduce, LineRefs, ReduceConfig};

/// Two loops, each a copy at stage 0 consumed at stage 2 (the planted bug loosens the wait).
const TWO_LOOPS: &str = r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        A_shared = T.alloc_buffer((1,), "float32", scope="shared")
        A_shared[0] = A[i]
        C[i] = A_shared[0]
    for j in T.serial(16, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B_shared = T.alloc_buffer((1,), "float32", scope="shared")
        B_shared[0] = B[j]
        D[j] = B_shared[0]
"#;

#[test]
fn the_minimizer_does_not_move_a_failure_to_another_statement() {
    let module = tirproof_reader::parse_module(TWO_LOOPS).expect("parses");
    let chain = ChainConfig {
        pass: PassVariant::PlantedBug,
        oracles: vec![OracleName::Pipeline, OracleName::Equivalence],
        mode: InputMode::Valid,
        ..ChainConfig::default()
    };
    let config = ReduceConfig { chain, oracle: Some(OracleName::Equivalence), budget: Duration::from_secs(120) };
    let reduction = reduce(&module, &config).expect("the program fails");
    assert_eq!(reduction.lines, LineRefs::Minimized, "the reduced text fails the same way");
    assert_eq!(reduction.failure.signature().to_string(), "equivalence/fault:output:read-pending-async");
    let first = reduction.result.failure().expect("a failure");
    let text = tirproof_ir::print::print_module(&reduction.reduced);
    let site = first.site().expect("the fault is at a statement");
    let line = text.lines().nth(site.line as usize - 1).unwrap_or_default();
    // The fault stays at the first loop's consumer: the second loop is what went.
    assert!(line.contains("C[i] = A_shared"), "the failure moved to line {}: `{line}`\n{first}\n{text}", site.line);
    assert!(text.contains("A_shared") && !text.contains("B_shared"), "{text}");
}
