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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use tirproof_ir::expr::{Expr, LogicOp};
use tirproof_ir::pipeline_annotations::{IntList, PipelineSpec};
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{BinOp, Buffer, BufferId, Stmt, StmtKind, Var, VarId};

use tirproof_ir::index_arith::{const_int, gcd, linear_form};

/// One access of a statement to a storage.
#[derive(Clone, Debug)]
struct Access {
    storage: VarId,
    buffer: Buffer,
    write: bool,
    indices: Vec<Expr>,
    /// The indices do not depend on the pipelined loop variable.
    invariant: bool,
    /// Conjuncts of the `if` conditions and block predicates the access runs under.
    guards: Vec<Guard>,
}

/// One condition an access runs under.
#[derive(Clone, Debug, PartialEq)]
enum Guard {
    /// The access is in the then-branch (or under the predicate).
    Holds(Expr),
    /// The access is in the else-branch.
    Fails(Expr),
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
    let mut lets = HashMap::new();
    let mut inner = HashMap::new();
    let accesses: Vec<Vec<Access>> =
        stmts.iter().map(|s| collect_accesses(s, loop_var, &mut lets, &mut inner)).collect();
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
    if under_threads {
        for uses in by_storage.values().filter(|uses| exchanges(uses)) {
            analysis.exchange_writers.extend(uses.iter().filter(|(_, a)| a.write).map(|(k, _)| *k));
        }
    }
    let indices = IndexRelation { loop_var, lets: &lets, inner: &inner, iterations };
    for uses in by_storage.values() {
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

/// Whether a shared-memory storage is written and accessed at differing indices, or at
/// indices that move with the iteration.
fn exchanges(uses: &[(usize, Access)]) -> bool {
    let shared = uses[0].1.buffer.scope().starts_with("shared");
    let written = uses.iter().any(|(_, a)| a.write);
    // An index that moves with the iteration may meet another thread's index of another
    // iteration (`B[tx + i]`), as accesses at different indices may in one iteration.
    let moving = uses.iter().any(|(_, a)| !a.invariant);
    shared
        && written
        && (moving || uses.iter().any(|(_, a)| a.indices != uses[0].1.indices || a.buffer != uses[0].1.buffer))
}

/// How the pass lays out one storage touched by the loop.
enum Layout {
    /// Every iteration writes, then reads, its own values: one version per iteration in flight.
    Staging(Buffer),
    /// Loop-invariant indices, but one version only; the reason says why.
    Single(SingleVersion),
    /// Indices that depend on the loop variable: the memory keeps its layout.
    Variant,
}

/// Why a storage accessed at loop-invariant indices cannot get a version per iteration.
#[derive(Clone, Copy, Debug)]
enum SingleVersion {
    /// Only buffers the function allocates can be versioned.
    NotAllocated,
    /// The statement reads the storage and writes it too, carrying values between iterations.
    ReaderWrites { stmt: usize },
    /// The statement reads the storage before any statement of the same iteration writes it.
    ReadFirst { stmt: usize },
    /// The statement may read without a write of the same iteration before it (the write is
    /// conditional), so it may see a value written in an earlier iteration.
    ConditionalWrite { reader: usize },
    /// Nothing in the loop reads what it writes.
    Unread,
}

/// The layout of this storage: staging (to version), or why it keeps one version.
fn staging_buffer(
    uses: &[(usize, Access)],
    candidates: &HashSet<BufferId>,
    locals: &HashSet<BufferId>,
    indices: &IndexRelation<'_>,
) -> Result<Layout, String> {
    let first = &uses[0].1.buffer;
    if uses.iter().any(|(_, a)| !a.invariant) {
        return Ok(Layout::Variant);
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
    if !candidates.contains(&first.id()) {
        return Ok(Layout::Single(SingleVersion::NotAllocated));
    }
    if let Some(&stmt) = readers.iter().find(|c| writers.contains(c)) {
        return Ok(Layout::Single(SingleVersion::ReaderWrites { stmt }));
    }
    if let Some(&stmt) = readers.iter().find(|&&c| first_writer.is_none_or(|p| p > c)) {
        return Ok(Layout::Single(SingleVersion::ReadFirst { stmt }));
    }
    if readers.is_empty() || writers.len() + readers.len() < 2 {
        return Ok(Layout::Single(SingleVersion::Unread));
    }
    // Every read must see a write of its own iteration: an earlier statement writes the
    // element under (a subset of) the reader's own conditions.
    let covered = |c: usize, read: &Access| {
        uses.iter().any(|(p, w)| {
            *p < c
                && w.write
                && w.guards.iter().all(|g| read.guards.contains(g))
                && !indices.relate(&w.indices, &read.indices).is_disjoint()
        })
    };
    if let Some((reader, _)) = uses.iter().find(|(c, a)| !a.write && !covered(*c, a)) {
        return Ok(Layout::Single(SingleVersion::ConditionalWrite { reader: *reader }));
    }
    if uses.iter().any(|(_, a)| a.buffer != *first) {
        return Err(format!(
            "staging buffer `{first}` is accessed through aliases; versioning aliased buffers is not supported"
        ));
    }
    Ok(Layout::Staging(first.clone()))
}

/// Which iterations of two accesses can touch the same element: the second access in
/// iteration `i + d` touches what the first touches in iteration `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Relation {
    /// Only at these distances (for a periodic relation, the nearest ones in each direction,
    /// which are the hardest to order); empty: never the same element.
    Distances(BTreeSet<i64>),
    /// Possibly at every distance.
    Every,
}

impl Relation {
    fn is_disjoint(&self) -> bool {
        matches!(self, Relation::Distances(d) if d.is_empty())
    }
}

/// What one index dimension tells about the distances.
enum DimRelation {
    /// Exactly these distances.
    Exact(BTreeSet<i64>),
    /// A periodic set, summarized by its nearest distances.
    Nearest(BTreeSet<i64>),
    /// Nothing.
    Unknown,
}

/// The dependence test on index tuples: affine in the loop variable or not.
struct IndexRelation<'a> {
    loop_var: &'a Var,
    /// Values of the variables bound in the loop body, to see through them.
    lets: &'a HashMap<VarId, Expr>,
    /// Variables of loops inside the pipelined loop, with their ranges (inclusive) when
    /// constant: two iterations may give them different values, so they never cancel.
    inner: &'a HashMap<VarId, Option<(i64, i64)>>,
    /// The pipelined loop's iterations (first and last, inclusive) when its bounds are
    /// constant: two accesses can only meet at distances shorter than the loop, and indices
    /// whose values over it never overlap never meet.
    iterations: Option<(i64, i64)>,
}

/// Whether the uniform parts of `a` and `b` are multiples of a power of two `g` wider than
/// the values their residue parts `scale * r + offset` (`r` in `[0, modulus)`) take together.
fn separate_rows(a: &ScaledResidue, b: &ScaledResidue) -> bool {
    let g = a.uniform.iter().chain(&b.uniform).fold(0u64, |g, (_, c)| gcd(g, c.unsigned_abs()));
    if g < 2 || !g.is_power_of_two() {
        return false;
    }
    let values = |r: &ScaledResidue| {
        let (x, y) = (i128::from(r.offset), i128::from(r.offset) + i128::from(r.scale) * i128::from(r.modulus - 1));
        (x.min(y), x.max(y))
    };
    let ((a_lo, a_hi), (b_lo, b_hi)) = (values(a), values(b));
    a_hi.max(b_hi) - a_lo.min(b_lo) < i128::from(g)
}

/// An index `scale * (residue_of % modulus) + offset + uniform` (see
/// [`IndexRelation::scaled_residue`]), computed in `width` bits.
struct ScaledResidue {
    scale: i64,
    residue_of: Expr,
    modulus: i64,
    offset: i64,
    uniform: Vec<(Expr, i64)>,
    width: u16,
}

/// An index as `loop_coefficient * loop_var + constant + uniform + inner`: `uniform` are terms
/// with one value in every iteration (no load, no inner loop variable), `inner` ranges over
/// the values the inner loop variables' terms take together.
struct AffineIndex {
    loop_coefficient: i64,
    constant: i64,
    uniform: Vec<(Expr, i64)>,
    inner: (i64, i64),
}

/// `e` as `x * f` or `x + f` with a constant `f` on either side: the operator, `x` and `f`.
fn constant_operand(e: &Expr) -> Option<(BinOp, &Expr, i64)> {
    let Expr::Binary { op: op @ (BinOp::Mul | BinOp::Add), lhs, rhs } = e else { return None };
    match (const_int(lhs), const_int(rhs)) {
        (_, Some(f)) => Some((*op, &**lhs, f)),
        (Some(f), None) => Some((*op, &**rhs, f)),
        (None, None) => None,
    }
}

/// At most this many candidate element offsets are enumerated per dimension; beyond, the
/// relation is unknown (every distance).
const MAX_SHIFTS: i64 = 4096;

impl IndexRelation<'_> {
    fn relate(&self, first: &[Expr], second: &[Expr]) -> Relation {
        if first.len() != second.len() {
            return Relation::Every;
        }
        let mut exact: Option<BTreeSet<i64>> = None;
        let mut nearest = None;
        for (a, b) in first.iter().zip(second) {
            match self.dimension(a, b) {
                DimRelation::Exact(set) => {
                    let both = match exact.take() {
                        Some(before) => before.intersection(&set).copied().collect(),
                        None => set,
                    };
                    exact = Some(both);
                }
                DimRelation::Nearest(set) => nearest = nearest.or(Some(set)),
                DimRelation::Unknown => {}
            }
        }
        let Some(mut distances) = exact.or(nearest) else { return Relation::Every };
        if let Some((first, last)) = self.iterations {
            let longest = last.saturating_sub(first);
            distances.retain(|d| d.unsigned_abs() <= longest.unsigned_abs());
        }
        Relation::Distances(distances)
    }

    fn dimension(&self, a: &Expr, b: &Expr) -> DimRelation {
        match (a, b) {
            (
                Expr::Ramp { base: base_a, stride: stride_a, lanes: lanes_a },
                Expr::Ramp { base: base_b, stride: stride_b, lanes: lanes_b },
            ) if stride_a == stride_b && lanes_a == lanes_b => {
                let Some(stride) = const_int(stride_a) else { return DimRelation::Unknown };
                let spread = i64::from(*lanes_a) - 1;
                self.affine(base_a, base_b, (-spread * stride.abs(), spread * stride.abs()))
            }
            (
                Expr::Binary { op: BinOp::FloorMod, lhs: x, rhs: m },
                Expr::Binary { op: BinOp::FloorMod, lhs: y, rhs: m2 },
            ) if m == m2 => self.periodic(x, y, m, 0),
            _ if let (Some(x), Some(y)) = (self.scaled_residue(a), self.scaled_residue(b)) => {
                self.scaled_residues(&x, &y)
            }
            _ => match (constant_operand(a), constant_operand(b)) {
                // `x * f` and `y * f` (or `x + f`, `y + f`) with one constant `f`, not zero:
                // equal exactly when `x` and `y` are.
                (Some((op, x, f)), Some((op2, y, f2))) if op == op2 && f == f2 && (f != 0 || op == BinOp::Add) => {
                    match self.dimension(x, y) {
                        DimRelation::Unknown => self.affine(a, b, (0, 0)),
                        known => known,
                    }
                }
                _ => self.affine(a, b, (0, 0)),
            },
        }
    }

    /// `e` as an affine index, or `None` when it depends on the loop variable otherwise, or
    /// on something no linear form describes (a load, an inner variable in a product).
    fn affine_index(&self, e: &Expr) -> Option<AffineIndex> {
        let (terms, constant) = linear_form(e, self.lets)?;
        let mut index = AffineIndex { loop_coefficient: 0, constant, uniform: Vec::new(), inner: (0, 0) };
        for (term, c) in terms {
            match &term {
                Expr::Var(v) if v == self.loop_var => index.loop_coefficient = index.loop_coefficient.checked_add(c)?,
                Expr::Var(v) if self.inner.contains_key(&v.id()) => {
                    let (lo, hi) = self.inner[&v.id()]?;
                    let (x, y) = (lo.checked_mul(c)?, hi.checked_mul(c)?);
                    index.inner = (index.inner.0.checked_add(x.min(y))?, index.inner.1.checked_add(x.max(y))?);
                }
                _ if self.uniform(&term) => index.uniform.push((term, c)),
                _ => return None,
            }
        }
        Some(index)
    }

    /// Whether `e` has one value in every iteration of the pipelined loop and its inner loops.
    fn uniform(&self, e: &Expr) -> bool {
        struct Uniform<'r, 'a>(&'r IndexRelation<'a>, bool);
        impl Visitor for Uniform<'_, '_> {
            fn visit_expr(&mut self, e: &Expr) {
                match e {
                    Expr::Load(_) | Expr::Call(_) => self.1 = false,
                    Expr::Var(v) if v == self.0.loop_var || self.0.inner.contains_key(&v.id()) => self.1 = false,
                    Expr::Var(v) => {
                        if let Some(value) = self.0.lets.get(&v.id()) {
                            self.visit_expr(value);
                        }
                    }
                    _ => {}
                }
                walk_expr(self, e);
            }
        }
        let mut check = Uniform(self, true);
        check.visit_expr(e);
        check.1
    }

    /// The loop coefficient `c` and the offsets `k` (an inclusive range) such that `a` in
    /// iteration `i` and `b` in iteration `i + d` touch one element exactly when `c * d` is one
    /// of them; `widen` adds the spread of the lanes of a ramp.
    fn offsets(&self, a: &Expr, b: &Expr, widen: (i64, i64)) -> Option<(i64, (i64, i64))> {
        let (x, y) = (self.affine_index(a)?, self.affine_index(b)?);
        let mut uniform = x.uniform;
        for (term, c) in y.uniform {
            match uniform.iter_mut().find(|(t, _)| *t == term) {
                Some((_, k)) => *k = k.checked_sub(c)?,
                None => uniform.push((term, c.checked_neg()?)),
            }
        }
        if x.loop_coefficient != y.loop_coefficient || uniform.iter().any(|(_, c)| *c != 0) {
            return None;
        }
        // a(i) = c*i + ka + A, b(i+d) = c*(i+d) + kb + B: equal when c*d = ka - kb + A - B.
        let k = x.constant.checked_sub(y.constant)?;
        let lo = k.checked_add(x.inner.0)?.checked_sub(y.inner.1)?.checked_add(widen.0)?;
        let hi = k.checked_add(x.inner.1)?.checked_sub(y.inner.0)?.checked_add(widen.1)?;
        (hi.checked_sub(lo)? < MAX_SHIFTS).then_some((x.loop_coefficient, (lo, hi)))
    }

    /// Affine `a` against `b`; `widen` adds the spread of a ramp's lanes.
    fn affine(&self, a: &Expr, b: &Expr, widen: (i64, i64)) -> DimRelation {
        let Some((c, (lo, hi))) = self.offsets(a, b, widen) else {
            return if self.never_overlap(a, b, widen) {
                DimRelation::Exact(BTreeSet::new())
            } else {
                DimRelation::Unknown
            };
        };
        let mut distances = BTreeSet::new();
        for k in lo..=hi {
            if c == 0 && k == 0 {
                // Loop-invariant and overlapping: the same element in every iteration.
                return DimRelation::Unknown;
            }
            if c != 0 && k % c == 0 {
                distances.insert(k / c);
            }
        }
        DimRelation::Exact(distances)
    }

    /// Whether the values `a` and `b` take over the whole loop (their inner loops included)
    /// lie in disjoint intervals, all in their type's range (so nothing wraps): then no two
    /// iterations touch one element, whatever their distance. `widen` is a ramp's spread.
    fn never_overlap(&self, a: &Expr, b: &Expr, widen: (i64, i64)) -> bool {
        let Some((first, last)) = self.iterations else { return false };
        let values = |e: &Expr| -> Option<(i128, i128)> {
            let index = self.affine_index(e)?;
            if !index.uniform.is_empty() || !e.dtype().is_integer() {
                return None;
            }
            let c = i128::from(index.loop_coefficient);
            let (x, y) = (c * i128::from(first), c * i128::from(last));
            let k = i128::from(index.constant);
            let (lo, hi) = (x.min(y) + k + i128::from(index.inner.0), x.max(y) + k + i128::from(index.inner.1));
            let half = 1i128 << (e.dtype().bits.clamp(1, 64) - 1);
            (lo >= -half && hi < half).then_some((lo, hi))
        };
        let (Some((a_lo, a_hi)), Some((b_lo, b_hi))) = (values(a), values(b)) else { return false };
        // `a` touches `a + widen.0 ..= a + widen.1` relative to `b`'s lanes: widen `a`'s range.
        let (a_lo, a_hi) = (a_lo + i128::from(widen.0.min(0)), a_hi + i128::from(widen.1.max(0)));
        a_hi < b_lo || b_hi < a_lo
    }

    /// `e` as `f * (x % m) + k + U` with constants `f != 0`, `m >= 1`, `k`, and terms `U`
    /// with one value in every iteration (`tx * 8`); `None` otherwise.
    fn scaled_residue(&self, e: &Expr) -> Option<ScaledResidue> {
        let (terms, k) = linear_form(e, self.lets)?;
        let mut residue = None;
        let mut uniform = Vec::new();
        for (term, c) in terms {
            match &term {
                Expr::Binary { op: BinOp::FloorMod, lhs: x, rhs: m } if !self.uniform(&term) => {
                    if residue.is_some() {
                        return None;
                    }
                    residue = Some(((**x).clone(), const_int(m).filter(|m| *m >= 1)?, c));
                }
                _ if self.uniform(&term) => uniform.push((term, c)),
                _ => return None,
            }
        }
        let (residue_of, modulus, scale) = residue?;
        uniform.sort_by_key(|(t, _)| format!("{t:?}"));
        Some(ScaledResidue { scale, residue_of, modulus, offset: k, uniform, width: e.dtype().bits })
    }

    /// `f * (x % m) + k + U` against `f * (y % m) + l + U`: one element when the residues
    /// differ by `q = (l - k) / f`, never when `f` does not divide `l - k` or `|q| >= m`,
    /// else at the distances where `x - y = q (mod m)`. Different scales, moduli or uniform
    /// parts: unknown. Wrapping changes nothing while `|f| * (m - 1) + |l - k|` stays below
    /// `2^(w-1)`: the two indices are then equal modulo `2^w` exactly when they are equal.
    ///
    /// Different uniform parts (`tx * 8` against `(tx + 1) % 5 * 8`: another thread's row)
    /// whose coefficients share a power-of-two factor `g` wider than both residue parts'
    /// values: the indices are then equal only where the uniform parts are equal and the
    /// residue parts too (their difference is a multiple of `g`, also modulo `2^w`), so the
    /// residue parts decide the distances, as if the uniform parts were one.
    fn scaled_residues(&self, a: &ScaledResidue, b: &ScaledResidue) -> DimRelation {
        if a.scale != b.scale || a.modulus != b.modulus || a.scale == 0 {
            return DimRelation::Unknown;
        }
        if a.uniform != b.uniform && !separate_rows(a, b) {
            return DimRelation::Unknown;
        }
        let Some(gap) = b.offset.checked_sub(a.offset) else { return DimRelation::Unknown };
        let spread = i128::from(a.scale).abs() * i128::from(a.modulus - 1) + i128::from(gap).abs();
        if spread >= 1i128 << (a.width.clamp(1, 64) - 1) {
            return DimRelation::Unknown;
        }
        if gap % a.scale != 0 || (gap / a.scale).abs() >= a.modulus {
            return DimRelation::Exact(BTreeSet::new());
        }
        self.periodic(&a.residue_of, &b.residue_of, &Expr::int(a.modulus), gap / a.scale)
    }

    /// `x % m` against `y % m` whose residues differ by `shift`: the distances `d` with
    /// `c * d = x - y - shift (mod m)`.
    fn periodic(&self, x: &Expr, y: &Expr, m: &Expr, shift: i64) -> DimRelation {
        let (Some(m), Some((c, (lo, hi)))) = (const_int(m), self.offsets(x, y, (0, 0))) else {
            return DimRelation::Unknown;
        };
        let (Some(lo), Some(hi)) = (lo.checked_sub(shift), hi.checked_sub(shift)) else { return DimRelation::Unknown };
        if !(1..=1 << 16).contains(&m) || hi - lo + 1 >= m {
            return DimRelation::Unknown;
        }
        if c.rem_euclid(m) == 0 {
            // The same residue in every iteration: always or never the same element.
            let never = (lo..=hi).all(|k| k.rem_euclid(m) != 0);
            return if never { DimRelation::Exact(BTreeSet::new()) } else { DimRelation::Unknown };
        }
        let mut nearest = BTreeSet::new();
        for k in lo..=hi {
            let Some(first) = (0..m).find(|d| (c * d - k).rem_euclid(m) == 0) else { continue };
            let period = (first + 1..=first + m).find(|d| (c * d - k).rem_euclid(m) == 0).unwrap_or(first + m) - first;
            nearest.extend(if first == 0 { vec![0, period, -period] } else { vec![first, first - period] });
        }
        if nearest.is_empty() {
            return DimRelation::Exact(nearest);
        }
        DimRelation::Nearest(nearest)
    }
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
                // issue that write while the earlier one is still pending.
                let rewrite = match indices.relate(&write.indices, &write.indices) {
                    Relation::Every => Some(1),
                    Relation::Distances(set) => set.into_iter().find(|&d| d > 0),
                };
                if let (false, Some(delta), true) = (matches!(layout, Layout::Staging(_)), rewrite, spec.is_async(p)) {
                    deps.insert(Dep { producer: p, consumer: p, delta });
                }
                continue;
            }
            let relation = indices.relate(&write.indices, &other.indices);
            let distances: Vec<i64> = match (layout, relation) {
                (_, r) if r.is_disjoint() => Vec::new(),
                // Versions keep iterations apart: only the same iteration's accesses meet.
                (Layout::Staging(_), _) => vec![0],
                (_, Relation::Distances(set)) => set.into_iter().collect(),
                // Checked in this order so that the first broken requirement is the nearest.
                (_, Relation::Every) if p > b => vec![1, 0, -1],
                (_, Relation::Every) => vec![0, 1, -1],
            };
            for d in distances {
                order_pair(spec, (p, b, d), !other.write, layout, name, deps)?;
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

impl SingleVersion {
    /// Why `buffer` keeps one version, as the end of a diagnostic.
    fn explain(self, buffer: &Buffer) -> String {
        match self {
            SingleVersion::NotAllocated => format!(
                "`{buffer}` would need versions, which only a buffer the function allocates (T.alloc_buffer) can have"
            ),
            SingleVersion::ReaderWrites { stmt } => format!(
                "`{buffer}` cannot be versioned because statement {stmt} both reads and writes it, carrying its value from one iteration to the next"
            ),
            SingleVersion::ReadFirst { stmt } => format!(
                "`{buffer}` cannot be versioned because statement {stmt} reads it before any statement of the same iteration writes it"
            ),
            SingleVersion::ConditionalWrite { reader } => format!(
                "`{buffer}` cannot be versioned because its write is conditional: statement {reader} may read a value of `{buffer}` written in an earlier iteration"
            ),
            SingleVersion::Unread => {
                format!("`{buffer}` cannot be versioned because no statement of the loop reads what another writes")
            }
        }
    }
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

fn collect_accesses(
    stmt: &Stmt,
    loop_var: &Var,
    lets: &mut HashMap<VarId, Expr>,
    inner: &mut HashMap<VarId, Option<(i64, i64)>>,
) -> Vec<Access> {
    let mut c = Collector { variant: HashSet::from([loop_var.id()]), out: Vec::new(), guards: Vec::new(), lets, inner };
    c.visit_stmt(stmt);
    c.out
}

struct Collector<'a> {
    /// The loop variable and variables bound to values that depend on it.
    variant: HashSet<VarId>,
    out: Vec<Access>,
    /// The conditions enclosing the statement being visited.
    guards: Vec<Guard>,
    /// Values of bound variables, for the dependence test.
    lets: &'a mut HashMap<VarId, Expr>,
    /// Variables of the loops inside the statement, with their constant ranges.
    inner: &'a mut HashMap<VarId, Option<(i64, i64)>>,
}

impl Collector<'_> {
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
        // `0 * 8 + i % 4` is `i % 4`: constant parts folded once, so the dependence test's
        // forms apply.
        let mut indices = indices.to_vec();
        indices.iter_mut().for_each(crate::fold::fold_expr);
        self.out.push(Access {
            storage: buffer.data().id(),
            buffer: buffer.clone(),
            write,
            indices,
            invariant,
            guards: self.guards.clone(),
        });
    }
}

impl Collector<'_> {
    fn bind(&mut self, var: &Var, value: &Expr) {
        if self.depends(value) {
            self.variant.insert(var.id());
        }
        self.lets.insert(var.id(), value.clone());
    }

    /// Visits `s` under the extra conditions `guards` (split at `and`).
    fn guarded(&mut self, guards: Vec<Guard>, s: &Stmt) {
        let depth = self.guards.len();
        self.guards.extend(guards);
        self.visit_stmt(s);
        self.guards.truncate(depth);
    }
}

/// The conjuncts of `cond`.
fn conjuncts(cond: &Expr) -> Vec<Guard> {
    match cond {
        Expr::Logic { op: LogicOp::And, lhs, rhs } => {
            let mut out = conjuncts(lhs);
            out.extend(conjuncts(rhs));
            out
        }
        _ => vec![Guard::Holds(cond.clone())],
    }
}

impl Visitor for Collector<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Load(load) => self.record(&load.buffer, &load.indices, false),
            Expr::Let { var, value, .. } => self.bind(var, value),
            _ => {}
        }
        walk_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Store(store) => self.record(&store.buffer, &store.indices, true),
            StmtKind::Let { var, value, .. } => self.bind(var, value),
            StmtKind::For(f) => {
                let range = const_int(&f.min)
                    .zip(const_int(&f.extent))
                    .filter(|(_, extent)| *extent >= 1)
                    .and_then(|(min, extent)| Some((min, min.checked_add(extent - 1)?)));
                self.inner.insert(f.var.id(), range);
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.visit_expr(cond);
                self.guarded(conjuncts(cond), then_case);
                if let Some(other) = else_case {
                    self.guarded(vec![Guard::Fails(cond.clone())], other);
                }
                return;
            }
            StmtKind::Block(block) => {
                for iv in &block.iter_vars {
                    self.bind(&iv.var, &iv.binding);
                }
                if let Some(predicate) = &block.predicate {
                    let depth = self.guards.len();
                    self.guards.extend(conjuncts(predicate));
                    walk_stmt(self, s);
                    self.guards.truncate(depth);
                    return;
                }
            }
            _ => {}
        }
        walk_stmt(self, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::DataType;

    fn relation(a: &Expr, b: &Expr, i: &Var, inner: &[(&Var, Option<(i64, i64)>)]) -> Relation {
        relation_over(a, b, i, inner, None)
    }

    fn relation_over(
        a: &Expr,
        b: &Expr,
        i: &Var,
        inner: &[(&Var, Option<(i64, i64)>)],
        iterations: Option<(i64, i64)>,
    ) -> Relation {
        let lets = HashMap::new();
        let inner: HashMap<VarId, Option<(i64, i64)>> = inner.iter().map(|(v, r)| (v.id(), *r)).collect();
        IndexRelation { loop_var: i, lets: &lets, inner: &inner, iterations }
            .relate(std::slice::from_ref(a), std::slice::from_ref(b))
    }

    #[test]
    fn scaled_residues_meet_only_where_their_offsets_allow() {
        let i = Var::new("i", DataType::INT32);
        let slot = |shift: i64, offset: i64| {
            Expr::floormod(Expr::var(&i) + Expr::int(shift), Expr::int(4)) * Expr::int(2) + Expr::int(offset)
        };
        // `i % 4 * 2` and `i % 4 * 2 + 1`: even and odd elements, never one.
        assert_eq!(relation(&slot(0, 0), &slot(0, 1), &i, &[]), distances(&[]));
        // Residues two apart (`+ 4`) meet where the second's iteration is two behind (mod 4).
        assert_eq!(relation(&slot(0, 4), &slot(0, 0), &i, &[]), distances(&[2, -2]));
        // `(i + 1) % 4 * 2` in iteration `i - 1` (or `i + 3`) is what `i % 4 * 2` is in `i`.
        assert_eq!(relation(&slot(0, 0), &slot(1, 0), &i, &[]), distances(&[-1, 3]));
        // Residues that can never be 4 apart, and scales that differ: never, and unknown.
        assert_eq!(relation(&slot(0, 0), &slot(0, 8), &i, &[]), distances(&[]));
        let tripled = Expr::floormod(Expr::var(&i), Expr::int(4)) * Expr::int(3);
        assert_eq!(relation(&slot(0, 0), &tripled, &i, &[]), Relation::Every);
        // A term with one value in every iteration (`tx * 8`) on both sides cancels.
        let tx = Var::new("tx", DataType::INT32);
        let row = |shift: i64, offset: i64| Expr::var(&tx) * Expr::int(8) + slot(shift, offset);
        assert_eq!(relation(&row(0, 0), &row(0, 1), &i, &[]), distances(&[]));
        assert_eq!(relation(&row(0, 0), &row(1, 0), &i, &[]), distances(&[-1, 3]));
        // On one side only: even against odd never meet; a row 8 apart may be `tx`'s row.
        assert_eq!(relation(&row(0, 0), &slot(0, 1), &i, &[]), distances(&[]));
        assert_eq!(relation(&row(0, 0), &slot(0, 8), &i, &[]), Relation::Every);
        // Another thread's row (`(tx + 1) % 5 * 8`) meets this one's only where the slots do.
        let neighbour =
            |shift: i64| Expr::floormod(Expr::var(&tx) + Expr::int(1), Expr::int(5)) * Expr::int(8) + slot(shift, 0);
        assert_eq!(relation(&row(0, 0), &neighbour(1), &i, &[]), distances(&[-1, 3]));
        // Rows 6 apart are not wider than the slots (up to 6): unknown.
        let narrow = Expr::var(&tx) * Expr::int(6) + slot(0, 0);
        assert_eq!(relation(&narrow, &neighbour(1), &i, &[]), Relation::Every);
        // Offsets so far apart that the indices could wrap onto each other: unknown.
        assert_eq!(relation(&slot(0, 0), &slot(0, 1 << 31), &i, &[]), Relation::Every);
    }

    #[test]
    fn a_loop_of_constant_extent_bounds_the_distances() {
        let i = Var::new("i", DataType::INT32);
        let shifted = |k: i64| Expr::var(&i) + Expr::int(k);
        // `B[i]` and `B[i + 5]` meet five iterations apart: not within `range(3)`.
        assert_eq!(relation_over(&shifted(0), &shifted(5), &i, &[], Some((0, 2))), distances(&[]));
        assert_eq!(relation_over(&shifted(0), &shifted(2), &i, &[], Some((0, 2))), distances(&[-2]));
        // `B[1]` and `B[i]`: never while `i` stays in `range(1)`, at some distance in `range(3)`.
        let one = Expr::int(1);
        assert_eq!(relation_over(&one, &Expr::var(&i), &i, &[], Some((0, 0))), distances(&[]));
        assert_eq!(relation_over(&one, &Expr::var(&i), &i, &[], Some((0, 2))), Relation::Every);
        // A range whose values would wrap proves nothing.
        let huge = Expr::var(&i) * Expr::int(1 << 30);
        assert_eq!(relation_over(&one, &huge, &i, &[], Some((2, 4))), Relation::Every);
    }

    fn distances(set: &[i64]) -> Relation {
        Relation::Distances(set.iter().copied().collect())
    }

    #[test]
    fn an_inner_loop_variable_takes_different_values_in_two_iterations() {
        let (i, j) = (Var::new("i", DataType::INT32), Var::new("j", DataType::INT32));
        let index = Expr::var(&i) + Expr::var(&j);
        // `B[i + j]`, j in 0..2: iteration i + 1 (j = 0) rewrites what iteration i wrote (j = 1).
        assert_eq!(relation(&index, &index, &i, &[(&j, Some((0, 1)))]), distances(&[-1, 0, 1]));
        // `B[i * 2 + j]`: the rows never meet across iterations.
        let row = Expr::var(&i) * Expr::int(2) + Expr::var(&j);
        assert_eq!(relation(&row, &row, &i, &[(&j, Some((0, 1)))]), distances(&[0]));
        // Without a constant range nothing is known.
        assert_eq!(relation(&index, &index, &i, &[(&j, None)]), Relation::Every);
    }

    #[test]
    fn a_scaled_periodic_index_keeps_its_period() {
        let i = Var::new("i", DataType::INT32);
        let scaled = Expr::floormod(Expr::var(&i), Expr::int(4)) * Expr::int(2);
        assert_eq!(relation(&scaled, &scaled, &i, &[]), distances(&[-4, 0, 4]));
        let shifted = scaled.clone() + Expr::int(1);
        assert_eq!(relation(&shifted, &shifted, &i, &[]), distances(&[-4, 0, 4]));
    }

    #[test]
    fn a_loaded_index_is_not_the_same_in_every_iteration() {
        let i = Var::new("i", DataType::INT32);
        let table = tirproof_ir::BufferSpec::new("Idx", DataType::INT32, vec![Expr::int(4)], "global").build();
        let index = Expr::var(&i) + Expr::load(&table, vec![Expr::int(0)]);
        assert_eq!(relation(&index, &index, &i, &[]), Relation::Every);
    }
}
