//! `inject-software-pipeline`: loops annotated with `software_pipeline_stage`,
//! `software_pipeline_order` and `software_pipeline_async_stages` become prologue, body and
//! epilogue, with staging buffers versioned and async stages turned into `async_scope`
//! stores, commit groups and waits whose counts are exact in every iteration.
//!
//! Loops are rewritten innermost first, so an inner pipeline is one (compound) statement of
//! the outer one; the outer pipeline's queues are numbered above the inner's. Buffers
//! allocated by the function around a pipelined loop can be staging buffers too: their
//! declaration is replaced by the versioned one, which is refused if they are also used
//! outside the loop. The annotations are read and validated by
//! `tirproof_ir::pipeline_annotations`, the checker's rules; `planted` is a deliberately wrong
//! variant of the pass for testing the fuzzers.

mod body;
mod deps;
mod emit;
mod groups;
mod pending;
mod planted;

use std::collections::{HashMap, HashSet};

use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::async_op::AsyncKey;
use tirproof_ir::index_arith::const_int;
use tirproof_ir::pipeline_annotations::{read_pipeline_spec, PipelineSpec, SpecError};
use tirproof_ir::visit::{walk_stmt, walk_stmt_mut, MutVisitor, Visitor};
use tirproof_ir::ThreadTag;
use tirproof_ir::{Buffer, BufferId, BufferSpec, Diagnostic, Expr, For, ForKind, PrimFunc, Span, Stmt, StmtKind};

use crate::{FunctionPass, FunctionReport};
use body::{async_without_store, split_body};
use emit::{Copier, Emitter, TokenRing, Versioned};
use groups::Groups;
pub use planted::PlantedBugPipeline;

pub struct InjectSoftwarePipeline;

impl FunctionPass for InjectSoftwarePipeline {
    const NAME: &'static str = "inject-software-pipeline";
    const DESCRIPTION: &'static str =
        "pipeline annotated loops into prologue, body and epilogue with async commits and exact waits";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        FunctionReport::unless(pipeline_func_with(func, WaitSpelling::Counts))
    }
}

/// `inject-software-pipeline` whose waits name the groups they need by their tokens.
pub struct InjectSoftwarePipelineTokens;

impl FunctionPass for InjectSoftwarePipelineTokens {
    const NAME: &'static str = "inject-software-pipeline-tokens";
    const DESCRIPTION: &'static str =
        "inject-software-pipeline with waits on tokens: each group's token kept in a ring, each wait naming the groups it needs";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        FunctionReport::unless(pipeline_func_with(func, WaitSpelling::Tokens))
    }
}

/// How the pass writes a wait: the count of groups left in flight, or the tokens of the
/// groups it needs (the same groups complete: the count is the one that completes the newest
/// of them, `lower-async-tokens` gives it back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaitSpelling {
    #[default]
    Counts,
    Tokens,
}

/// Pipelines every annotated loop of `func`; returns the problems found.
pub fn pipeline_func(func: &mut PrimFunc) -> Vec<Diagnostic> {
    pipeline_func_with(func, WaitSpelling::Counts)
}

/// [`pipeline_func`] with waits written as `spelling` says.
pub fn pipeline_func_with(func: &mut PrimFunc, spelling: WaitSpelling) -> Vec<Diagnostic> {
    let mut rewriter = Rewriter { spelling, ..Rewriter::default() };
    rewriter.mutate_stmt(&mut func.body);
    rewriter.errors
}

#[derive(Default)]
struct Rewriter {
    spelling: WaitSpelling,
    errors: Vec<Diagnostic>,
    /// Buffers the function allocates that are in scope here, innermost last.
    allocated: Vec<Buffer>,
    /// Buffers allocated around a pipelined loop that the loop versioned.
    replaced: HashMap<BufferId, (Buffer, Span)>,
    /// Thread-index bindings (loops or launches) enclosing the current statement.
    thread_depth: usize,
}

impl MutVisitor for Rewriter {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        match &mut stmt.kind {
            StmtKind::AllocBuffer { buffer, body, .. } => {
                self.allocated.push(buffer.clone());
                self.mutate_stmt(body);
                self.allocated.pop();
                self.replace_declaration(buffer, body);
            }
            StmtKind::Block(block) => {
                let count = block.alloc_buffers.len();
                self.allocated.extend(block.alloc_buffers.iter().map(|a| a.buffer.clone()));
                self.mutate_stmt(&mut block.body);
                self.allocated.truncate(self.allocated.len() - count);
                for alloc in &mut block.alloc_buffers {
                    self.replace_declaration(&mut alloc.buffer, &block.body);
                }
            }
            StmtKind::For(f) if is_thread_index(f.thread.as_deref()) => {
                self.thread_depth += 1;
                self.mutate_stmt(&mut f.body);
                self.thread_depth -= 1;
            }
            StmtKind::LaunchThread { tag, body, .. } if is_thread_index(Some(tag)) => {
                self.thread_depth += 1;
                self.mutate_stmt(body);
                self.thread_depth -= 1;
            }
            StmtKind::For(f) => match read_pipeline_spec(&f.annotations) {
                None => walk_stmt_mut(self, stmt),
                Some(spec) => {
                    self.mutate_stmt(&mut f.body);
                    let span = stmt.span;
                    let located = |errors: Vec<SpecError>| -> Vec<Diagnostic> {
                        errors.iter().map(|e| Diagnostic::error(span, e.to_string())).collect()
                    };
                    match spec.map_err(located).and_then(|spec| self.pipeline_loop(f, &spec, span)) {
                        Ok(replacement) => *stmt = replacement,
                        Err(errs) => self.errors.extend(errs),
                    }
                }
            },
            _ => walk_stmt_mut(self, stmt),
        }
    }
}

impl Rewriter {
    /// Swaps in the versioned buffer for a declaration around a pipelined loop.
    fn replace_declaration(&mut self, buffer: &mut Buffer, scope: &Stmt) {
        let Some((new, loop_span)) = self.replaced.remove(&buffer.id()) else {
            return;
        };
        if let Some(line) = first_use(scope, buffer) {
            self.errors.push(Diagnostic::error(
                loop_span,
                format!(
                    "staging buffer `{buffer}` is also used outside the pipelined loop (line {line}); versioning it would change that access"
                ),
            ));
            return;
        }
        *buffer = new;
    }

    fn pipeline_loop(&mut self, f: &For, spec: &PipelineSpec, span: Span) -> Result<Stmt, Vec<Diagnostic>> {
        let fail = |msg: String| vec![Diagnostic::error(span, msg)];
        if f.kind != ForKind::Serial {
            return Err(fail(format!("only serial loops can be pipelined; this loop is `{}`", f.kind.constructor())));
        }
        let body = split_body(&f.body, spec.len()).map_err(fail)?;
        if let Some(k) = async_without_store(&body.stmts, |k| spec.is_async(k)) {
            return Err(fail(format!("statement {k} is in async stage {} but stores nothing", spec.stages[k])));
        }
        pending::check_async_statements(&body.stmts, spec).map_err(fail)?;
        let mut candidates: HashSet<BufferId> = self.allocated.iter().map(Buffer::id).collect();
        candidates.extend(body.locals.iter().map(|l| l.buffer.id()));
        let locals: HashSet<BufferId> = body.locals.iter().map(|l| l.buffer.id()).collect();
        let iterations = const_int(&f.min).zip(const_int(&f.extent)).and_then(|(min, extent)| {
            let last = min.checked_add(extent)?.checked_sub(1)?;
            (extent > 0).then_some((min, last))
        });
        let analysis =
            deps::analyse(&body.stmts, &f.var, iterations, spec, &candidates, &locals, self.thread_depth > 0)
                .map_err(fail)?;
        let groups = Groups::build(spec, analysis.deps.iter().copied());
        let mut versioned = Vec::new();
        for staging in analysis.staging.iter().filter(|s| s.versions > 1) {
            let new = versioned_buffer(&staging.buffer, staging.versions).map_err(fail)?;
            versioned.push(Versioned { old: staging.buffer.clone(), new, versions: staging.versions });
        }
        let queue_offset = next_free_queue(&body.stmts);
        let tokens = (self.spelling == WaitSpelling::Tokens).then(|| {
            (0..groups.runs.len())
                .map(|r| TokenRing::of(&groups, r, groups.runs[r].stage + queue_offset, &f.var))
                .collect::<Vec<_>>()
        });
        let emitter = Emitter {
            spec,
            groups: &groups,
            stmts: &body.stmts,
            loop_var: &f.var,
            min: f.min.clone(),
            versioned: &versioned,
            queue_offset,
            body_annotations: without_pipeline_keys(&f.annotations),
            barriers: analysis.exchanges_shared_data,
            exchange_writers: &analysis.exchange_writers,
            span,
            copier: Copier::new(&versioned),
            tokens,
        };
        let mut result = emitter.emit(&f.extent);
        let emitted = statements(&result);
        if emitted > MAX_PIPELINE_STATEMENTS {
            return Err(fail(format!(
                "pipelining this loop would emit {emitted} statements, more than the limit of \
                 {MAX_PIPELINE_STATEMENTS} (its prologue and epilogue copy the loop body; nested \
                 pipelines multiply the copies at every level)"
            )));
        }
        for local in body.locals.iter().rev() {
            let buffer =
                versioned.iter().find(|v| v.old == local.buffer).map_or(local.buffer.clone(), |v| v.new.clone());
            result = Stmt::new(
                StmtKind::AllocBuffer { buffer, annotations: local.annotations.clone(), body: Box::new(result) },
                span,
            );
        }
        for ring in emitter.tokens.iter().flatten() {
            result = Stmt::new(
                StmtKind::AllocBuffer {
                    buffer: ring.buffer.clone(),
                    annotations: tirproof_ir::Annotations::default(),
                    body: Box::new(result),
                },
                span,
            );
        }
        for v in &versioned {
            if !body.locals.iter().any(|l| l.buffer == v.old) {
                self.replaced.insert(v.old.id(), (v.new.clone(), span));
            }
        }
        Ok(result)
    }
}

/// The most statements one pipelined loop may become (docs/limits.md). Nested pipelines
/// multiply their copies at every level: 14 levels of a two-stage loop of extent 4 made
/// 147,000 lines in 11.5 s and 180 MB, 20 levels ran out of memory. Real kernels emit
/// hundreds.
pub const MAX_PIPELINE_STATEMENTS: usize = 100_000;

/// How many statements `stmt` holds, itself included.
fn statements(stmt: &Stmt) -> usize {
    struct Count(usize);
    impl Visitor for Count {
        fn visit_stmt(&mut self, s: &Stmt) {
            self.0 += 1;
            walk_stmt(self, s);
        }
        // Expressions and buffer definitions hold no statements.
        fn visit_expr(&mut self, _: &Expr) {}
        fn visit_buffer_def(&mut self, _: &Buffer) {}
    }
    let mut count = Count(0);
    count.visit_stmt(stmt);
    count.0
}

fn is_thread_index(tag: Option<&str>) -> bool {
    tag.and_then(ThreadTag::parse).is_some_and(|t| t.thread_axis().is_some())
}

/// The buffer with a leading dimension of `versions` slots.
fn versioned_buffer(buffer: &Buffer, versions: i64) -> Result<Buffer, String> {
    if !buffer.strides().is_empty() {
        return Err(format!("staging buffer `{buffer}` has explicit strides; versioning it is not supported"));
    }
    let mut spec: BufferSpec = buffer.to_spec();
    spec.shape.insert(0, Expr::int(versions));
    spec.data = spec.data.fresh_copy();
    Ok(spec.build())
}

fn without_pipeline_keys(annotations: &tirproof_ir::Annotations) -> tirproof_ir::Annotations {
    let mut kept = annotations.clone();
    for key in [PIPELINE_STAGE, PIPELINE_ORDER, PIPELINE_ASYNC_STAGES] {
        kept.remove(key);
    }
    kept
}

/// One more than the largest constant queue id used inside `stmts` (0 when none).
fn next_free_queue(stmts: &[Stmt]) -> i64 {
    struct MaxQueue(i64);
    impl Visitor for MaxQueue {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let StmtKind::Attr(a) = &s.kind {
                if matches!(AsyncKey::parse(&a.key), Some(AsyncKey::CommitQueue | AsyncKey::WaitQueue)) {
                    if let Some(q) = a.value.as_int() {
                        self.0 = self.0.max(q + 1);
                    }
                }
            }
            walk_stmt(self, s);
        }
        // Queue ids are on attribute statements; expressions hold none.
        fn visit_expr(&mut self, _: &Expr) {}
        fn visit_buffer_def(&mut self, _: &Buffer) {}
    }
    let mut m = MaxQueue(0);
    stmts.iter().for_each(|s| m.visit_stmt(s));
    m.0
}

/// The line of the first access to `buffer` in `scope`, if any.
fn first_use(scope: &Stmt, buffer: &Buffer) -> Option<u32> {
    struct Finder<'a> {
        buffer: &'a Buffer,
        line: Option<u32>,
        current: u32,
    }
    impl Visitor for Finder<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            let saved = self.current;
            if s.span.is_known() {
                self.current = s.span.line;
            }
            walk_stmt(self, s);
            self.current = saved;
        }
        fn visit_buffer_use(&mut self, b: &Buffer) {
            if b == self.buffer && self.line.is_none() {
                self.line = Some(self.current);
            }
        }
    }
    let mut f = Finder { buffer, line: None, current: 0 };
    f.visit_stmt(scope);
    f.line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The origins enclosing each store of `s` (by original statement), outermost first.
    fn store_origins(s: &Stmt) -> Vec<Vec<u32>> {
        struct Chains {
            current: Vec<u32>,
            out: Vec<Vec<u32>>,
        }
        impl Visitor for Chains {
            fn visit_stmt(&mut self, s: &Stmt) {
                self.current.extend(s.origin.iter().map(|o| o.stmt));
                if matches!(s.kind, StmtKind::Store(_)) {
                    self.out.push(self.current.clone());
                }
                walk_stmt(self, s);
                if s.origin.is_some() {
                    self.current.pop();
                }
            }
        }
        let mut c = Chains { current: Vec::new(), out: Vec::new() };
        c.visit_stmt(s);
        c.out
    }

    #[test]
    fn copies_of_an_inner_pipeline_keep_the_outer_origin() {
        let text = include_str!("../../../corpus/pipeline/nested_inner_sequence.py");
        let mut module = tirproof_reader::parse_module(text).expect("test program parses");
        let func = &mut module.functions[0];
        assert!(pipeline_func(func).is_empty());
        let chains = store_origins(&func.body);
        // The copy loop is emitted twice (prologue, body loop); the inner pipeline, a bare
        // sequence of two stores, twice too (body loop, epilogue).
        assert_eq!(chains, vec![vec![0], vec![0], vec![1, 0], vec![1, 0], vec![1, 0], vec![1, 0]]);
    }
}
