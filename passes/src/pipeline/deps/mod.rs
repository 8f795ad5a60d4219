//! Which statements of a pipelined loop touch which memory, what must wait for what, and how
//! many versions each staging buffer needs.
//!
//! Memory is identified by data variable, so aliases count as one storage. A storage is a
//! *staging* buffer when it is allocated by the function (inside the loop or around it), every
//! access in the loop uses indices that do not depend on the loop variable, and every read
//! sees a write of its own iteration: an earlier statement, not the reader, writes it under no
//! condition the reader does not also run under (enclosing `if` conditions and block
//! predicates, compared structurally by conjunct). Staging buffers are versioned; other memory
//! keeps one version, and then every dependence between iterations must be ordered.
//!
//! Two accesses of one storage (one a write) are related by the iterations in which they can
//! touch the same element (`Relation`): in some index dimension both are affine in the loop
//! variable with one nonzero coefficient `c` and rests differing by a constant `k`: only at
//! distance `k / c` (never when `c` does not divide `k`; ramps add their lane offsets to
//! `k`); loop-invariant and different constants: never; `x % m` against `y % m`: the
//! periodic distances, summarized by the nearest in each direction (the hardest to order);
//! otherwise at every distance.
//!
//! A dependence `producer -> consumer` with `delta` 0 means the consumer in iteration `i`
//! needs the producer's iteration `i`; `delta` d means iteration `i - d`. Only the nearest
//! `delta` of each pair is kept: a wait for it completes the producer's earlier groups too.
//!
//! Layout, one concept a file: `accesses` (what each statement touches, under which
//! conditions), `relation` (in which iterations two accesses can touch one element),
//! `layout` (staging buffers, their versions, and why other memory keeps one version); this
//! file builds the dependence graph from them.

mod accesses;
mod layout;
mod relation;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use tirproof_ir::pipeline_annotations::{IntList, PipelineSpec};
use tirproof_ir::structural::IdMap;
use tirproof_ir::{Buffer, BufferId, Stmt, Var};

use accesses::*;
use layout::*;
use relation::*;

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
    /// The statements that write such shared memory: other threads may read, in the same
    /// step, an element one of them overwrites for a later iteration (an anti dependence the
    /// original ordered by a barrier between iterations), so each gets a barrier before it.
    pub exchange_writers: BTreeSet<usize>,
}

/// Analyses the loop's statements. `candidates` are the buffers the function allocates that
/// are in scope (the loop's own and those around it); only they can become staging buffers.
pub fn analyse(
    stmts: &[Stmt],
    loop_var: &Var,
    iterations: Option<(i64, i64)>,
    spec: &PipelineSpec,
    candidates: &HashSet<BufferId>,
    locals: &HashSet<BufferId>,
    under_threads: bool,
) -> Result<Analysis, String> {
    let mut lets = IdMap::default();
    let mut inner = IdMap::default();
    let mut accesses = collect_accesses(stmts, loop_var, &mut lets, &mut inner);
    // The uses of each storage, storages in order of their variables, each storage's uses in
    // statement order (a stable sort keeps it).
    accesses.sort_by_key(|(_, a)| a.storage);
    let by_storage = || accesses.chunk_by(|(_, x), (_, y)| x.storage == y.storage);
    let mut analysis =
        Analysis { exchanges_shared_data: under_threads && by_storage().any(exchanges), ..Analysis::default() };
    if under_threads {
        for uses in by_storage().filter(|uses| exchanges(uses)) {
            analysis.exchange_writers.extend(uses.iter().filter(|(_, a)| a.write).map(|(k, _)| *k));
        }
    }
    let indices = IndexRelation { loop_var, lets: &lets, inner: &inner, iterations };
    for uses in by_storage() {
        let layout = staging_buffer(uses, candidates, locals, &indices)?;
        let key = |k: usize| (spec.stages[k], spec.orders[k]);
        add_dependences(uses, &layout, spec, &indices, &mut analysis.deps)?;
        if let Layout::Staging(buffer) = layout {
            // Threads that exchange data get a barrier at the end of each step only, so a slot
            // is never rewritten in the step that reads it.
            let versions = versions_needed(uses, &key, analysis.exchanges_shared_data);
            add_slot_reuse(uses, versions, spec, &indices, &mut analysis.deps);
            analysis.staging.push(Staging { buffer, versions });
        }
    }
    // A wait for a producer's group also completes its earlier groups (one queue, in order),
    // so only the nearest iteration of each producer matters.
    let mut nearest: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    for d in &analysis.deps {
        nearest.entry((d.producer, d.consumer)).and_modify(|delta| *delta = (*delta).min(d.delta)).or_insert(d.delta);
    }
    analysis.deps =
        nearest.into_iter().map(|((producer, consumer), delta)| Dep { producer, consumer, delta }).collect();
    let implied: Vec<Dep> =
        analysis.deps.iter().filter(|d| rewrite_is_waited_for(**d, &analysis.deps, spec)).copied().collect();
    for d in implied {
        analysis.deps.remove(&d);
    }
    Ok(analysis)
}

/// Whether a statement's dependence on its own write `delta` iterations earlier is implied:
/// a consumer of that statement that runs before it waits for that write, or a later one, of
/// the same queue.
fn rewrite_is_waited_for(own: Dep, deps: &BTreeSet<Dep>, spec: &PipelineSpec) -> bool {
    let p = own.producer;
    // Only distances above 1 (periodic indices) are dropped, keeping the one-step rewrite
    // of a loop-invariant element as it was.
    own.consumer == p
        && own.delta > 1
        && deps.iter().any(|d| {
            let c = d.consumer;
            // The last iteration of `c` before `p`'s iteration `i` is `i + gap`; it waits for
            // `p`'s iteration `i + gap - d.delta`.
            let gap = spec.stages[p] - spec.stages[c] - i64::from(spec.orders[c] >= spec.orders[p]);
            d.producer == p && c != p && gap - d.delta >= -own.delta
        })
}

fn add_dependences(
    uses: &[(usize, Access)],
    layout: &Layout,
    spec: &PipelineSpec,
    indices: &IndexRelation<'_>,
    deps: &mut BTreeSet<Dep>,
) -> Result<(), String> {
    let name = &uses[0].1.buffer;
    for (x, (p, write)) in uses.iter().enumerate() {
        if !write.write {
            continue;
        }
        let p = *p;
        for (y, (b, other)) in uses.iter().enumerate() {
            let b = *b;
            if x == y {
                // An async statement rewriting an element of an earlier iteration must not
                // issue that write while the earlier one is still pending (versions keep a
                // staging buffer's iterations apart).
                if matches!(layout, Layout::Staging(_)) || !spec.is_async(p) {
                    continue;
                }
                let rewrite = match indices.relate(&write.indices, &write.indices) {
                    Relation::Every => Some(1),
                    Relation::Distances(set) => set.into_iter().find(|&d| d > 0),
                };
                if let Some(delta) = rewrite {
                    deps.insert(Dep { producer: p, consumer: p, delta });
                }
                continue;
            }
            let mut order = |d| order_pair(spec, (p, b, d), !other.write, layout, name, deps);
            match (layout, indices.relate(&write.indices, &other.indices)) {
                (_, r) if r.is_disjoint() => {}
                // Versions keep iterations apart: only the same iteration's accesses meet.
                (Layout::Staging(_), _) => order(0)?,
                (_, Relation::Distances(set)) => set.into_iter().try_for_each(order)?,
                // Checked in this order so that the first broken requirement is the nearest.
                (_, Relation::Every) if p > b => [1, 0, -1].into_iter().try_for_each(order)?,
                (_, Relation::Every) => [0, 1, -1].into_iter().try_for_each(order)?,
            }
        }
    }
    Ok(())
}

/// A version of a staging buffer is used again `versions` iterations later. An async write
/// that no later statement of its iteration touches is waited for by nobody, so every access
/// of that later iteration to its element waits for it first. (A later statement of the same
/// iteration that touches the element waits for the write itself, before the version is
/// reused: `versions_needed` runs it first.)
fn add_slot_reuse(
    uses: &[(usize, Access)],
    versions: i64,
    spec: &PipelineSpec,
    indices: &IndexRelation<'_>,
    deps: &mut BTreeSet<Dep>,
) {
    let overlaps = |x: &Access, y: &Access| !indices.relate(&x.indices, &y.indices).is_disjoint();
    for (p, write) in uses.iter().filter(|(p, a)| a.write && spec.is_async(*p)) {
        if uses.iter().any(|(b, other)| b > p && overlaps(write, other)) {
            continue;
        }
        for (b, other) in uses {
            if overlaps(write, other) {
                deps.insert(Dep { producer: *p, consumer: *b, delta: versions });
            }
        }
    }
}

/// Orders a write of statement `p` and an access of statement `b` that touch the same element
/// when `b` runs `d` iterations after `p`; `reads` says whether `b`'s access is a read.
fn order_pair(
    spec: &PipelineSpec,
    (p, b, d): (usize, usize, i64),
    reads: bool,
    layout: &Layout,
    buffer: &Buffer,
    deps: &mut BTreeSet<Dep>,
) -> Result<(), String> {
    let single = match layout {
        Layout::Single(reason) => Some(*reason),
        _ => None,
    };
    if d > 0 || (d == 0 && p < b) {
        // `b` uses (or overwrites) what `p` wrote.
        let hazard = if d == 0 { Hazard::Flow } else { Hazard::CarriedFlow { distance: d } };
        require_before(spec, (p, 0), (b, d), buffer, hazard)?;
        deps.insert(Dep { producer: p, consumer: b, delta: d });
    } else if d < 0 || p > b {
        // `b` reads (or writes) before `p` overwrites: only the order matters; a write pair
        // is ordered as the opposite pair too.
        let hazard = match (d, single) {
            (0, _) => Hazard::Anti,
            (-1, Some(reason)) if p < b => Hazard::Unversioned(reason),
            _ => Hazard::CarriedAnti { distance: -d },
        };
        if reads || d != 0 {
            require_before(spec, (b, 0), (p, -d), buffer, hazard)?;
        }
    }
    Ok(())
}

/// What an ordering requirement protects, for the error message.
#[derive(Clone, Copy)]
enum Hazard {
    /// The later statement uses what the earlier one wrote in the same iteration.
    Flow,
    /// The statement uses what the other one wrote `distance` iterations earlier.
    CarriedFlow { distance: i64 },
    /// The earlier statement reads what the later one overwrites in the same iteration.
    Anti,
    /// The statement uses what the other one overwrites `distance` iterations later.
    CarriedAnti { distance: i64 },
    /// A buffer the pass cannot version would be overwritten by the next iteration first.
    Unversioned(SingleVersion),
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
        Hazard::CarriedFlow { distance: 1 } => format!(
            "statement {b} uses `{buffer}` that statement {a} wrote in the previous iteration, but stages {stages} and orders {orders} run it before that write"
        ),
        Hazard::CarriedFlow { distance } => format!(
            "statement {b} uses `{buffer}` that statement {a} wrote {distance} iterations earlier, but stages {stages} and orders {orders} run it before that write"
        ),
        Hazard::Unversioned(reason) => format!(
            "statement {a} uses `{buffer}` after statement {b} writes it, but with stages {stages} and orders {orders} the next iteration's write would come first; {}",
            reason.explain(buffer)
        ),
        Hazard::Anti => format!(
            "statement {b} overwrites `{buffer}` that statement {a} reads earlier in the same iteration, but stages {stages} and orders {orders} run the write first"
        ),
        Hazard::CarriedAnti { distance } => format!(
            "statement {b} overwrites `{buffer}` {distance} iteration(s) after statement {a} accesses the same element, but stages {stages} and orders {orders} run that write first"
        ),
    })
}
