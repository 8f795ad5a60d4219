//! Which statements of a pipelined loop touch which memory, what must wait for what, and how
//! many versions each staging buffer needs.
//!
//! Memory is identified by data variable, so aliases count as one storage. A storage is a
//! *staging* buffer when it is allocated by the function (inside the loop or around it), every
//! access in the loop uses indices that do not depend on the loop variable, and each statement
//! that reads it reads what an earlier statement of the same iteration wrote. Staging buffers
//! are versioned; other memory keeps its layout, and accesses that depend on the loop variable
//! are assumed to touch a different element in each iteration (as TVM assumes).
//!
//! A dependence `producer -> consumer` with `delta` 0 means the consumer in iteration `i`
//! needs the producer's iteration `i`; `delta` 1 means iteration `i - 1`.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use tirproof_ir::expr::Expr;
use tirproof_ir::pipeline_annotations::{IntList, PipelineSpec};
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{Buffer, BufferId, Stmt, StmtKind, Var, VarId};

/// One access of a statement to a storage.
#[derive(Clone, Debug)]
struct Access {
    storage: VarId,
    buffer: Buffer,
    write: bool,
    indices: Vec<Expr>,
    /// The indices do not depend on the pipelined loop variable.
    invariant: bool,
}

/// A staging buffer and its number of versions.
#[derive(Clone, Debug)]
pub struct Staging {
    pub buffer: Buffer,
    pub versions: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dep {
    pub producer: usize,
    pub consumer: usize,
    pub delta: i64,
}

#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub staging: Vec<Staging>,
    /// Every dependence between statements (flow, output and, for invariant memory, anti).
    pub deps: BTreeSet<Dep>,
    /// Some shared memory written in the loop is accessed with different indices by
    /// different statements: under a thread binding, threads then exchange data and need
    /// barriers.
    pub exchanges_shared_data: bool,
}

/// Analyses the loop's statements. `candidates` are the buffers the function allocates that
/// are in scope (the loop's own and those around it); only they can become staging buffers.
pub fn analyse(
    stmts: &[Stmt],
    loop_var: &Var,
    spec: &PipelineSpec,
    candidates: &HashSet<BufferId>,
    locals: &HashSet<BufferId>,
    under_threads: bool,
) -> Result<Analysis, String> {
    let accesses: Vec<Vec<Access>> = stmts.iter().map(|s| collect_accesses(s, loop_var)).collect();
    let mut by_storage: BTreeMap<VarId, Vec<(usize, Access)>> = BTreeMap::new();
    for (k, list) in accesses.iter().enumerate() {
        for a in list {
            by_storage.entry(a.storage).or_default().push((k, a.clone()));
        }
    }
    let mut analysis = Analysis {
        exchanges_shared_data: under_threads && by_storage.values().any(|uses| exchanges(uses)),
        ..Analysis::default()
    };
    for uses in by_storage.values() {
        let staging = staging_buffer(uses, candidates, locals)?;
        let key = |k: usize| (spec.stages[k], spec.orders[k]);
        add_dependences(uses, staging.is_some(), spec, &mut analysis.deps)?;
        if let Some(buffer) = staging {
            // Threads that exchange data get a barrier at the end of each step only, so a slot
            // is never rewritten in the step that reads it.
            let versions = versions_needed(uses, &key, analysis.exchanges_shared_data);
            analysis.staging.push(Staging { buffer, versions });
        }
    }
    Ok(analysis)
}

/// Whether a shared-memory storage is written and accessed at differing indices.
fn exchanges(uses: &[(usize, Access)]) -> bool {
    let shared = uses[0].1.buffer.scope().starts_with("shared");
    let written = uses.iter().any(|(_, a)| a.write);
    shared && written && uses.iter().any(|(_, a)| a.indices != uses[0].1.indices || a.buffer != uses[0].1.buffer)
}

/// The buffer to version, when this storage is a staging buffer.
fn staging_buffer(
    uses: &[(usize, Access)],
    candidates: &HashSet<BufferId>,
    locals: &HashSet<BufferId>,
) -> Result<Option<Buffer>, String> {
    let first = &uses[0].1.buffer;
    if !candidates.contains(&first.id()) || uses.iter().any(|(_, a)| !a.invariant) {
        return Ok(None);
    }
    let writers: BTreeSet<usize> = uses.iter().filter(|(_, a)| a.write).map(|(k, _)| *k).collect();
    let readers: BTreeSet<usize> = uses.iter().filter(|(_, a)| !a.write).map(|(k, _)| *k).collect();
    let first_writer = writers.iter().next().copied();
    let early_reader = readers.iter().find(|&&c| !writers.contains(&c) && first_writer.is_none_or(|p| p > c));
    if let (Some(c), true) = (early_reader, locals.contains(&first.id())) {
        return Err(format!(
            "statement {c} reads `{first}`, which the loop body allocates, before any statement of the same iteration writes it"
        ));
    }
    let per_iteration = readers.iter().all(|c| !writers.contains(c) && first_writer.is_some_and(|p| p < *c));
    if !per_iteration || readers.is_empty() || writers.len() + readers.len() < 2 {
        return Ok(None);
    }
    if uses.iter().any(|(_, a)| a.buffer != *first) {
        return Err(format!(
            "staging buffer `{first}` is accessed through aliases; versioning aliased buffers is not supported"
        ));
    }
    Ok(Some(first.clone()))
}

fn add_dependences(
    uses: &[(usize, Access)],
    staging: bool,
    spec: &PipelineSpec,
    deps: &mut BTreeSet<Dep>,
) -> Result<(), String> {
    let invariant = uses.iter().all(|(_, a)| a.invariant);
    let writers: BTreeSet<usize> = uses.iter().filter(|(_, a)| a.write).map(|(k, _)| *k).collect();
    let accessors: BTreeSet<usize> = uses.iter().map(|(k, _)| *k).collect();
    let name = &uses[0].1.buffer;
    for &p in &writers {
        for &b in &accessors {
            if p < b {
                require_before(spec, (p, 0), (b, 0), name, Hazard::Flow)?;
                if invariant && !staging {
                    // The same element is rewritten every iteration and cannot be versioned:
                    // the next iteration's write must wait for this iteration's use.
                    require_before(spec, (b, 0), (p, 1), name, Hazard::Unversioned)?;
                }
                deps.insert(Dep { producer: p, consumer: b, delta: 0 });
            } else if p > b && invariant && !staging {
                require_before(spec, (p, -1), (b, 0), name, Hazard::CarriedFlow)?;
                require_before(spec, (b, 0), (p, 0), name, Hazard::Anti)?;
                deps.insert(Dep { producer: p, consumer: b, delta: 1 });
            } else if p > b && staging && !writers.contains(&b) {
                require_before(spec, (b, 0), (p, 0), name, Hazard::Anti)?;
            } else if p == b && invariant && !staging && spec.is_async(p) {
                // An async statement rewriting the same location every iteration must not issue
                // a write while its previous one is still pending.
                deps.insert(Dep { producer: p, consumer: p, delta: 1 });
            }
        }
    }
    Ok(())
}

/// What an ordering requirement protects, for the error message.
#[derive(Clone, Copy)]
enum Hazard {
    /// The later statement uses what the earlier one wrote in the same iteration.
    Flow,
    /// The later statement uses what the earlier one wrote in the previous iteration.
    CarriedFlow,
    /// The earlier statement reads what the later one overwrites in the same iteration.
    Anti,
    /// A buffer the pass cannot version would be overwritten by the next iteration first.
    Unversioned,
}

/// Requires statement `a` in iteration `i + da` to run before `b` in iteration `i + db`.
fn require_before(
    spec: &PipelineSpec,
    (a, da): (usize, i64),
    (b, db): (usize, i64),
    buffer: &Buffer,
    hazard: Hazard,
) -> Result<(), String> {
    let when = |k: usize, d: i64| (spec.stages[k] + d, spec.orders[k]);
    if when(a, da) < when(b, db) {
        return Ok(());
    }
    let (sa, sb) = (spec.stages[a], spec.stages[b]);
    let (stages, orders) = (IntList(&spec.stages), IntList(&spec.orders));
    Err(match hazard {
        Hazard::Flow if sa > sb => format!(
            "statement {b} (stage {sb}) uses `{buffer}` after statement {a} writes it, but runs in an earlier stage than that producer (stage {sa})"
        ),
        Hazard::Flow => format!(
            "statement {b} uses `{buffer}` after statement {a} writes it, but `software_pipeline_order` {orders} runs it first within stage {sa}"
        ),
        Hazard::CarriedFlow => format!(
            "statement {b} uses `{buffer}` that statement {a} wrote in the previous iteration, but stages {stages} and orders {orders} run it before that write"
        ),
        Hazard::Unversioned => format!(
            "statement {a} uses `{buffer}` after statement {b} writes it, but with stages {stages} and orders {orders} the next iteration's write would come first; `{buffer}` would need versions, which only a buffer the function allocates (T.alloc_buffer) can have"
        ),
        Hazard::Anti => format!(
            "statement {b} overwrites `{buffer}` that statement {a} reads earlier in the same iteration, but stages {stages} and orders {orders} run the write first"
        ),
    })
}

/// The fewest versions such that a producer's next write to a slot comes after every use of
/// that slot in the iteration that wrote it.
fn versions_needed(uses: &[(usize, Access)], key: &impl Fn(usize) -> (i64, i64), whole_steps: bool) -> i64 {
    let mut versions = 1;
    for (a, acc) in uses {
        if !acc.write {
            continue;
        }
        for (b, _) in uses {
            if a < b {
                let ((sa, oa), (sb, ob)) = (key(*a), key(*b));
                versions = versions.max(sb - sa + i64::from(oa <= ob || whole_steps));
            }
        }
    }
    versions
}

fn collect_accesses(stmt: &Stmt, loop_var: &Var) -> Vec<Access> {
    let mut c = Collector { variant: HashSet::from([loop_var.id()]), out: Vec::new() };
    c.visit_stmt(stmt);
    c.out
}

struct Collector {
    /// The loop variable and variables bound to values that depend on it.
    variant: HashSet<VarId>,
    out: Vec<Access>,
}

impl Collector {
    fn depends(&self, e: &Expr) -> bool {
        struct Mentions<'a>(&'a HashSet<VarId>, bool);
        impl Visitor for Mentions<'_> {
            fn visit_expr(&mut self, e: &Expr) {
                if let Expr::Var(v) = e {
                    self.1 |= self.0.contains(&v.id());
                }
                walk_expr(self, e);
            }
        }
        let mut m = Mentions(&self.variant, false);
        m.visit_expr(e);
        m.1
    }

    fn record(&mut self, buffer: &Buffer, indices: &[Expr], write: bool) {
        let invariant = !indices.iter().any(|i| self.depends(i));
        self.out.push(Access {
            storage: buffer.data().id(),
            buffer: buffer.clone(),
            write,
            indices: indices.to_vec(),
            invariant,
        });
    }
}

impl Visitor for Collector {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Load(load) => self.record(&load.buffer, &load.indices, false),
            Expr::Let { var, value, .. } if self.depends(value) => {
                self.variant.insert(var.id());
            }
            _ => {}
        }
        walk_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Store(store) => self.record(&store.buffer, &store.indices, true),
            StmtKind::Let { var, value, .. } if self.depends(value) => {
                self.variant.insert(var.id());
            }
            StmtKind::Block(block) => {
                for iv in &block.iter_vars {
                    if self.depends(&iv.binding) {
                        self.variant.insert(iv.var.id());
                    }
                }
            }
            _ => {}
        }
        walk_stmt(self, s);
    }
}
