//! `inject-software-pipeline-planted-bug`: the pipeline pass with a known bug, for testing the
//! fuzzers themselves (`--planted-bug`): their oracles must catch it.
//!
//! The pass runs the real pass, then loosens by one every wait whose statement needs a group
//! produced two or more stages earlier (unsafe: the wait no longer covers that group, and a
//! last wait that drained the queue no longer does). The production emitter knows nothing of
//! it. Which waits those are is read from the output and
//! its provenance: the statement a wait guards carries its origin (with its stage), and so does
//! every statement a commit scope encloses, which gives the stage of the queue's producers.
//!
//! Invariant: walking in program order, a queue's commit always comes before the first wait on
//! it in the same pipelined loop (a wait is only emitted for a group already committed), so the
//! latest commit seen names the producers' stage even when separate loops reuse a queue id.

use std::collections::HashMap;

use tirproof_ir::async_op::AsyncKey;
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Diagnostic, Expr, Origin, PrimFunc, Stmt, StmtKind};

use super::InjectSoftwarePipeline;
use crate::{FunctionPass, FunctionReport};

/// How many stages apart a producer and its consumer are before the bug loosens the wait.
const DISTANT: i64 = 2;

/// A deliberately wrong variant of `inject-software-pipeline`: wherever a statement waits for
/// a queue whose producer runs two or more stages earlier, the in-flight count is one too large.
pub struct PlantedBugPipeline;

impl FunctionPass for PlantedBugPipeline {
    const NAME: &'static str = "inject-software-pipeline-planted-bug";
    const DESCRIPTION: &'static str =
        "inject-software-pipeline with one wait count one too large in one pattern (fuzzer tests only)";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        let report = InjectSoftwarePipeline.run_on_function(func)?;
        Loosen::default().mutate_stmt(&mut func.body);
        Ok(report)
    }
}

/// The walk that loosens the distant waits of one function.
#[derive(Default)]
struct Loosen {
    /// The stage of each queue's producers, from the latest commit seen.
    producer_stage: HashMap<i64, i64>,
}

impl MutVisitor for Loosen {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if let StmtKind::Attr(scope) = &mut stmt.kind {
            let queue = scope.value.as_int();
            let key = AsyncKey::parse(&scope.key);
            if key == Some(AsyncKey::CommitQueue) {
                if let (Some(queue), Some(origin)) = (queue, first_origin(&scope.body)) {
                    self.producer_stage.insert(queue, origin.stage);
                }
            } else if key == Some(AsyncKey::WaitQueue) {
                if let (Some(queue), StmtKind::Attr(count)) = (queue, &mut scope.body.kind) {
                    if AsyncKey::parse(&count.key) == Some(AsyncKey::InflightCount)
                        && self.is_distant(queue, &count.body)
                    {
                        if let Some(n) = count.value.as_int() {
                            count.value = Expr::int(n + 1);
                        }
                    }
                }
            }
        }
        walk_stmt_mut(self, stmt);
    }
}

impl Loosen {
    /// Whether the statement `guarded` waits on `queue` for producers two or more stages earlier.
    fn is_distant(&self, queue: i64, guarded: &Stmt) -> bool {
        match (first_origin(guarded), self.producer_stage.get(&queue)) {
            (Some(consumer), Some(&producer)) => consumer.stage - producer >= DISTANT,
            _ => false,
        }
    }
}

/// The origin of the first emitted statement in `stmt`, looking through the scopes and
/// sequences the pass wraps statements in (waits, async scopes, barriers before a read).
fn first_origin(stmt: &Stmt) -> Option<&Origin> {
    if let Some(origin) = &stmt.origin {
        return Some(origin);
    }
    match &stmt.kind {
        StmtKind::Attr(scope) => first_origin(&scope.body),
        StmtKind::Seq(items) => items.iter().find_map(first_origin),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use tirproof_ir::visit::{walk_stmt, Visitor};

    use super::*;
    use crate::Pass;
    use tirproof_ir::IRModule;

    /// The in-flight count of every wait of `module`, in program order.
    fn wait_counts(module: &IRModule) -> Vec<i64> {
        struct Counts(Vec<i64>);
        impl Visitor for Counts {
            fn visit_stmt(&mut self, s: &Stmt) {
                if let StmtKind::Attr(a) = &s.kind {
                    if AsyncKey::parse(&a.key) == Some(AsyncKey::InflightCount) {
                        self.0.extend(a.value.as_int());
                    }
                }
                walk_stmt(self, s);
            }
        }
        let mut counts = Counts(Vec::new());
        module.functions.iter().for_each(|f| counts.visit_stmt(&f.body));
        counts.0
    }

    /// The real pass's and the planted bug's wait counts for `stages` of a copy and its use.
    fn both(stages: &str) -> (Vec<i64>, Vec<i64>) {
        let text = format!(
            r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={{"software_pipeline_stage": {stages}, "software_pipeline_async_stages": [0]}}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)
"#
        );
        let module = tirproof_reader::parse_module(&text).expect("the test program parses");
        let (mut real, mut planted) = (module.clone(), module);
        InjectSoftwarePipeline.run(&mut real).expect("pipelines");
        PlantedBugPipeline.run(&mut planted).expect("pipelines");
        (wait_counts(&real), wait_counts(&planted))
    }

    #[test]
    fn waits_for_a_producer_two_stages_earlier_are_one_too_loose() {
        let (real, planted) = both("[0, 2]");
        // Every wait guards the use: the steady state, then the epilogue down to 0 (which
        // drains the queue, so no separate drain follows).
        assert_eq!(real, vec![2, 1, 0]);
        assert_eq!(planted, vec![3, 2, 1]);
    }

    #[test]
    fn waits_for_the_next_stage_are_left_alone() {
        let (real, planted) = both("[0, 1]");
        assert!(!real.is_empty());
        assert_eq!(real, planted);
    }
}
