//! The `pipeline-tokens` oracle: the pipeline pass writing its waits with tokens
//! (`inject-software-pipeline-tokens`), lowered back to counts by `lower-async-tokens`, gives
//! exactly the counts the pass computes directly (its output, which the chain already holds),
//! wait by wait in program order. The two lowerings meet only here: the pass knows every count
//! in closed form, so a count the lowering derives otherwise (another expression, the counter
//! of commits, a refusal) is a failure of one of them.

use tirproof_ir::async_op::{decode_annotations, decode_chain, AsyncKey};
use tirproof_ir::print::print_expr;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{Expr, IRModule, Stmt, StmtKind};
use tirproof_passes::PassManager;

use super::{Failure, FailureClass, OracleName, Outcome};

/// The passes whose output is compared with the counted pass's.
pub const TOKEN_PIPELINE: [&str; 2] = ["inject-software-pipeline-tokens", "lower-async-tokens"];

/// `input` through [`TOKEN_PIPELINE`] against `counted`, the pipeline pass's output on it.
pub fn check(input: &IRModule, counted: &IRModule) -> Outcome {
    let fail = |class, message: String| Outcome::Fail(Failure::new(OracleName::PipelineTokens, class, message));
    let mut tokened = input.clone();
    let manager = match PassManager::from_names(&TOKEN_PIPELINE) {
        Ok(manager) => manager,
        Err(e) => return fail(FailureClass::PassRejected, e.to_string()),
    };
    if let Err(e) = manager.run(&mut tokened) {
        return fail(FailureClass::PassRejected, format!("{}: {e}", TOKEN_PIPELINE.join(", ")));
    }
    let (direct, derived) = (wait_counts(counted), wait_counts(&tokened));
    if direct.len() != derived.len() {
        let message = format!("the pass writes {} waits with counts but {} with tokens", direct.len(), derived.len());
        return fail(FailureClass::TokenCountsDiffer, message);
    }
    for (k, (a, b)) in direct.iter().zip(&derived).enumerate() {
        if a != b {
            let message = format!(
                "wait {k}: the pass computes in-flight {}, its tokens lower to {}",
                shown(a.as_ref()),
                shown(b.as_ref())
            );
            return fail(FailureClass::TokenCountsDiffer, message);
        }
    }
    Outcome::Pass
}

fn shown(count: Option<&Expr>) -> String {
    count.map_or_else(|| "(none)".to_string(), print_expr)
}

/// The in-flight count of every wait of `module`, in program order (`None` for a wait
/// without one).
fn wait_counts(module: &IRModule) -> Vec<Option<Expr>> {
    struct Counts(Vec<Option<Expr>>);
    impl Visitor for Counts {
        fn visit_stmt(&mut self, s: &Stmt) {
            match &s.kind {
                StmtKind::Attr(attr) if AsyncKey::parse(&attr.key) == Some(AsyncKey::WaitQueue) => {
                    let wait = decode_chain(attr).and_then(|c| c.ops().ok()).and_then(|ops| ops.wait);
                    self.0.push(wait.and_then(|w| w.inflight().cloned()));
                }
                StmtKind::Block(block) => {
                    if let Ok(Some(ops)) = decode_annotations(&block.annotations) {
                        if let Some(wait) = ops.wait {
                            self.0.push(wait.inflight().cloned());
                        }
                    }
                }
                _ => {}
            }
            walk_stmt(self, s);
        }
    }
    let mut counts = Counts(Vec::new());
    for func in &module.functions {
        counts.visit_stmt(&func.body);
    }
    counts.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_passes::pipeline::pipeline_func;
    use tirproof_reader::parse_module;

    /// The RFC's two-stage pipeline: its tokens lower to the pass's counts; with one of the
    /// pass's counts changed, the oracle fails.
    #[test]
    fn the_counts_of_the_tokens_are_the_pass_counts_and_a_changed_count_is_caught() {
        let input = parse_module(include_str!("../../../corpus/pipeline/rfc_a_async.py")).expect("parses");
        let mut counted = input.clone();
        for func in &mut counted.functions {
            assert!(pipeline_func(func).is_empty());
        }
        assert!(matches!(check(&input, &counted), Outcome::Pass));
        let text = tirproof_ir::print::print_module(&counted);
        let changed = text.replacen("\"async_wait_inflight_count\": 1", "\"async_wait_inflight_count\": 2", 1);
        assert_ne!(text, changed);
        let changed = parse_module(&changed).expect("parses");
        match check(&input, &changed) {
            Outcome::Fail(failure) => assert_eq!(failure.class, FailureClass::TokenCountsDiffer),
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}
