//! The pipeline pass with tokens, lowered back to counts: on every corpus pipeline the pass
//! accepts, `inject-software-pipeline-tokens` then `lower-async-tokens` gives every wait the
//! in-flight count `inject-software-pipeline` computes directly (compared as IR, wait by wait
//! in program order), each one in closed form: the lowering keeps no counter of commits.

use std::fs;
use std::path::{Path, PathBuf};

use tirproof_ir::async_op::{decode_annotations, decode_chain};
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{Expr, IRModule, Stmt, StmtKind};
use tirproof_passes::PassManager;

fn pipeline_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join("pipeline");
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("corpus/pipeline")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    files
}

fn run_passes(module: &IRModule, passes: &[&str]) -> Option<IRModule> {
    let mut out = module.clone();
    let manager = PassManager::from_names(passes).expect("the passes are registered");
    manager.run(&mut out).ok().map(|_| out)
}

/// Every wait of the module in program order: its queue and in-flight count (`None` for a
/// wait on tokens alone), and every local buffer it allocates.
#[derive(Default)]
struct Waits {
    counts: Vec<(Expr, Option<Expr>)>,
    allocated: Vec<String>,
}

impl Visitor for Waits {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let (ops, body) = match &stmt.kind {
            // A chain's links are one wait: only its body is walked further.
            StmtKind::Attr(attr) => match decode_chain(attr) {
                Some(chain) => (chain.ops().ok(), Some(chain.body)),
                None => (None, None),
            },
            StmtKind::Block(block) => (decode_annotations(&block.annotations).ok().flatten(), None),
            StmtKind::AllocBuffer { buffer, .. } => {
                self.allocated.push(buffer.name().to_string());
                (None, None)
            }
            _ => (None, None),
        };
        if let Some(wait) = ops.and_then(|o| o.wait) {
            self.counts.push((wait.queue.clone(), wait.inflight().cloned()));
        }
        match body {
            Some(body) => self.visit_stmt(body),
            None => walk_stmt(self, stmt),
        }
    }
}

fn waits(module: &IRModule) -> Waits {
    let mut waits = Waits::default();
    for func in &module.functions {
        waits.visit_stmt(&func.body);
    }
    waits
}

#[test]
fn tokens_lower_to_the_counts_the_pipeline_pass_computes() {
    let mut compared = 0;
    for path in pipeline_files() {
        let name = path.display().to_string();
        let module = tirproof_reader::parse_module(&fs::read_to_string(&path).expect("readable")).expect(&name);
        let counted = run_passes(&module, &["inject-software-pipeline"]);
        let tokens = run_passes(&module, &["inject-software-pipeline-tokens"]);
        assert_eq!(counted.is_some(), tokens.is_some(), "{name}: the two passes accept it alike");
        let (Some(counted), Some(tokens)) = (counted, tokens) else { continue };
        let lowered = run_passes(&tokens, &["lower-async-tokens"]).unwrap_or_else(|| panic!("{name}: lowers"));
        let (want, got) = (waits(&counted), waits(&lowered));
        assert!(got.counts.iter().all(|(_, c)| c.is_some()), "{name}: a wait on tokens alone is left");
        assert_eq!(got.counts, want.counts, "{name}: the lowered counts differ from the pipeline pass's");
        assert_eq!(got.allocated, waits(&tokens).allocated, "{name}: the lowering allocated a counter of commits");
        compared += 1;
    }
    assert!(compared >= 40, "the corpus pipelines are compared: {compared}");
}
