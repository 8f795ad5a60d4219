//! `Substitution::stmt` builds a copy from the borrowed original in one walk; it must give
//! exactly what cloning the statement and substituting in place gives (`apply_stmt`, the
//! visitor's walk), since the pipeline pass makes every copy of a loop body with it.
//!
//! Checked on every loop of every program of the corpus, and of the pipeline pass's outputs
//! (statements with provenance records): the loop's body under a substitution that freshens
//! binders, maps the loop variable to `var + 3` or to a constant, re-indexes every buffer the
//! function allocates with a version index in front, and folds as it goes.

use std::path::Path;

use tirproof_ir::print::print_expr;
use tirproof_ir::structural::{stmt_diff, stmt_eq};
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{Buffer, BufferSpec, Expr, PrimFunc, Stmt, StmtKind};
use tirproof_passes::fold::Folder;
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::PassManager;
use tirproof_reader::parse_module;

/// The loops of a function and the buffers it allocates.
#[derive(Default)]
struct Parts {
    loops: Vec<Stmt>,
    allocated: Vec<Buffer>,
}

impl Visitor for Parts {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::For(_) => self.loops.push(stmt.clone()),
            StmtKind::AllocBuffer { buffer, .. } => self.allocated.push(buffer.clone()),
            StmtKind::Block(block) => self.allocated.extend(block.alloc_buffers.iter().map(|a| a.buffer.clone())),
            _ => {}
        }
        walk_stmt(self, stmt);
    }
}

/// The substitution for `loop_var := value`, re-indexing each allocated buffer.
fn substitution(
    loop_var: &tirproof_ir::Var,
    value: Expr,
    versioned: &[(Buffer, Buffer)],
    freshen: bool,
) -> Substitution<Folder> {
    let plain = if freshen { Substitution::freshening() } else { Substitution::new() };
    let mut subst = plain.with_rewrite(Folder).var(loop_var, value);
    for (old, new) in versioned {
        subst = subst.reindex(old, new, vec![Expr::int(1)]);
    }
    subst
}

/// Compares the two ways of copying every loop body of `func`; returns how many were compared.
fn compare_copies(func: &PrimFunc, origin: &str) -> usize {
    let mut parts = Parts::default();
    parts.visit_stmt(&func.body);
    let versioned: Vec<(Buffer, Buffer)> = parts
        .allocated
        .iter()
        .map(|b| {
            let mut shape = vec![Expr::int(2)];
            shape.extend(b.shape().iter().cloned());
            (b.clone(), BufferSpec::new(b.name(), b.dtype(), shape, b.scope()).build())
        })
        .collect();
    let mut compared = 0;
    for stmt in &parts.loops {
        let StmtKind::For(f) = &stmt.kind else { continue };
        let values = [Expr::var(&f.var) + Expr::int(3), Expr::int(5)];
        for (value, freshen) in values.into_iter().zip([true, false]) {
            let fused = substitution(&f.var, value.clone(), &versioned, freshen).stmt(&f.body);
            let mut in_place = f.body.clone();
            substitution(&f.var, value, &versioned, freshen).apply_stmt(&mut in_place);
            assert!(
                stmt_eq(&fused, &in_place),
                "{origin}: the copy differs from the substituted clone: {}",
                stmt_diff(&fused, &in_place).unwrap_or_default()
            );
            assert_eq!(origins(&fused), origins(&in_place), "{origin}: provenance records differ");
            compared += 1;
        }
    }
    compared
}

/// The provenance records of a statement's parts, in walk order, as text.
fn origins(stmt: &Stmt) -> Vec<String> {
    struct Origins(Vec<String>);
    impl Visitor for Origins {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if let Some(origin) = &stmt.origin {
                self.0.push(format!("{}/{}/{}", origin.stmt, origin.stage, print_expr(&origin.iteration)));
            }
            walk_stmt(self, stmt);
        }
    }
    let mut all = Origins(Vec::new());
    all.visit_stmt(stmt);
    all.0
}

#[test]
fn copies_built_from_the_original_equal_substituted_clones_on_the_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let (mut compared, mut with_origins) = (0, 0);
    for entry in walkdir::WalkDir::new(&corpus).sort_by_file_name() {
        let entry = entry.expect("corpus readable");
        if entry.path().extension().is_none_or(|e| e != "py") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).expect("read");
        let Ok(module) = parse_module(&text) else { continue };
        let name = entry.path().display().to_string();
        for func in &module.functions {
            compared += compare_copies(func, &name);
        }
        // The pass's refusals include programs that take seconds to refuse (output limits).
        if entry.path().parent().is_some_and(|dir| dir.ends_with("pipeline-errors")) {
            continue;
        }
        let mut pipelined = module.clone();
        if PassManager::single(InjectSoftwarePipeline).run(&mut pipelined).is_ok() {
            for func in &pipelined.functions {
                let before = compared;
                compared += compare_copies(func, &format!("{name} (pipelined)"));
                if compared > before && !origins(&func.body).is_empty() {
                    with_origins += 1;
                }
            }
        }
    }
    assert!(compared > 500, "only {compared} loop bodies compared");
    assert!(with_origins > 20, "only {with_origins} pipelined functions with provenance compared");
}
