//! What the waits and commits before a program point amount to, summarized once per point
//! rather than re-derived by every check at that point.
//!
//! Three summaries, all exact (they leave out only terms that cannot change any obligation):
//!
//! * **Which waits can govern a point.** `completed(u)` is the most that any wait before `u`
//!   forced (`committed - count`, see `checker.rs`). A wait `W` runs *surely before* `u` when,
//!   in the iteration of their common loops that `u` runs in, `W` runs exactly once and
//!   before `u`: their paths part at two children of one statement, `W`'s first, and `W`'s
//!   part of the path holds no loop and no branch, and every condition on `W` is evaluated on
//!   the common part (so it held for `u` too). Groups committed by one thread never decrease
//!   along program order, so a wait `W'` all of whose instances before `u` run before such a
//!   `W` forced no more than `W` did when its count is at least `W`'s: `W'` cannot govern
//!   `u`. The verifier loosens one wait at a time (tightness), so `W'` is left out only when
//!   two surely-before waits cover it: loosening either leaves the other. With straight-line
//!   code this keeps two waits per point instead of all the waits before it, which is what
//!   makes the verifier grow linearly with such programs.
//! * **One covering wait, credited with commits** ([`lone_cover`]). A loop body usually
//!   holds one wait before its uses, not two: the nearest surely-before wait `W` (count `c`)
//!   covers a wait `W'` all of whose instances before the point ran before the current
//!   iteration of `W`'s innermost loop, when `count(W') >= c - m` and `m` commits run surely
//!   in that iteration before `W`. Since one wait alone covers it, `W'` is kept for the checks
//!   that loosen `W` (its term holds only while `W`'s slack is positive); every other check
//!   has it fixed away. In a nested pipeline this leaves a use in a copy with its own wait
//!   instead of every wait of every copy around it.
//! * **Groups committed before a straight-line point** (a point outside every loop and
//!   branch): every instance of a commit that precedes it textually runs before it, so the
//!   count is a prefix sum over the queue's commits in program order, extended as points
//!   further down are asked for ([`CommitPrefix`]).
//!
//! Invariant: "all instances of `W'` before `u` run before `W`" is decided on paths alone
//! ([`before_every_time`]): `W'`'s and `W`'s paths part at two children of one statement,
//! `W'`'s first, or at the two branches of one `if` (in one execution of it only one runs;
//! earlier executions come before). Any other shape keeps `W'`.

use std::collections::BTreeMap;

use z3::ast::Int;

use super::model::{Event, EventId, EventKind, LoopId, Model, QueueId, Step};

/// The waits and commits of one queue, in event order, computed once per function.
#[derive(Default)]
pub struct QueueEvents {
    pub waits: Vec<EventId>,
    pub commits: Vec<EventId>,
    /// Whether the last instance of each wait before a point forces the most of its instances
    /// there (see `Checker::last_forces_most`); set by the checker.
    pub lasts_force_most: bool,
    /// The waits in program order, with what the governing test asks of each.
    order: WaitOrder,
}

/// The waits of a queue sorted by path (a wait's place in that order is its rank), and for
/// each wait (aligned with `QueueEvents::waits`) its constant count and its launch: what
/// [`governing_candidates`] compares per point, as integers.
#[derive(Default)]
struct WaitOrder {
    sorted: Vec<EventId>,
    count: Vec<Option<i64>>,
    launch: Vec<Option<LoopId>>,
    /// The ranks of the waits with a constant count, by count, and of those without one:
    /// the waits a cover can leave out only at a count of at least its own.
    ranks_by_count: BTreeMap<i64, Vec<usize>>,
    ranks_uncounted: Vec<usize>,
    /// Each wait's position in `QueueEvents::waits`, by rank.
    index: Vec<usize>,
    /// Whether each wait in `sorted` runs before the next by [`before_every_time`]: then an
    /// earlier rank means "before every time" for any two of them (the relation chains
    /// along a sorted order).
    chained: bool,
}

impl WaitOrder {
    fn new(model: &Model, waits: &[EventId]) -> Self {
        let path = |w: &EventId| &model.event(*w).path;
        let mut sorted = waits.to_vec();
        sorted.sort_by(|a, b| path(a).cmp(path(b)));
        let chained = sorted.windows(2).all(|w| before_every_time(path(&w[0]), path(&w[1])));
        let position: BTreeMap<EventId, usize> = sorted.iter().enumerate().map(|(r, w)| (*w, r)).collect();
        let rank: Vec<usize> = waits.iter().map(|w| position[w]).collect();
        let count: Vec<Option<i64>> = waits.iter().map(|w| constant_count(model.event(*w))).collect();
        let mut index = vec![0; waits.len()];
        let (mut ranks_by_count, mut ranks_uncounted) = (BTreeMap::<i64, Vec<usize>>::new(), Vec::new());
        for (i, (&r, c)) in rank.iter().zip(&count).enumerate() {
            index[r] = i;
            match c {
                Some(c) => ranks_by_count.entry(*c).or_default().push(r),
                None => ranks_uncounted.push(r),
            }
        }
        for ranks in ranks_by_count.values_mut().chain(std::iter::once(&mut ranks_uncounted)) {
            ranks.sort_unstable();
        }
        WaitOrder {
            launch: waits.iter().map(|w| model.launch_of(model.event(*w))).collect(),
            count,
            ranks_by_count,
            ranks_uncounted,
            index,
            sorted,
            chained,
        }
    }
}

/// The waits and commits of every queue of `model`.
pub fn queue_events(model: &Model) -> BTreeMap<QueueId, QueueEvents> {
    let mut queues: BTreeMap<QueueId, QueueEvents> = BTreeMap::new();
    for (id, event) in model.events_by_id() {
        match event.kind {
            EventKind::Wait { queue, .. } => queues.entry(queue).or_default().waits.push(id),
            EventKind::Commit { queue } => queues.entry(queue).or_default().commits.push(id),
            _ => {}
        }
    }
    for events in queues.values_mut() {
        events.order = WaitOrder::new(model, &events.waits);
    }
    queues
}

/// Whether every instance of the event at path `a` that runs before a point where the event
/// at `b` runs too, in the same iteration of their common loops, runs before that instance of
/// `b` (see the module docs): the paths part at `Child(x)` and `Child(y)` with `x < y`, or
/// at two different branches of one `if`.
pub fn before_every_time(a: &[Step], b: &[Step]) -> bool {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((Step::Child(x), Step::Child(y))) => x < y,
        Some((Step::Branch(x), Step::Branch(y))) => x != y,
        _ => false,
    }
}

/// Whether no instance of the event at path `a` runs before any instance of the event at
/// `b`: `b` comes first by [`before_every_time`], and no loop encloses both (no iteration of
/// one comes back to `a` after `b`).
pub fn never_before(a: &[Step], b: &[Step]) -> bool {
    let common = common_prefix(a, b);
    before_every_time(b, a) && !a[..common].iter().any(|s| matches!(s, Step::Loop(_)))
}

/// Whether `wait` runs surely before every instance of `at` (see the module docs): their
/// paths part at children `x < y` of one statement, `wait`'s rest of the path is children
/// only, and each of its conditions is evaluated on the common part.
fn surely_before(wait: &Event, at: &Event) -> bool {
    let common = common_prefix(&wait.path, &at.path);
    let parts_first = matches!(
        (wait.path.get(common), at.path.get(common)),
        (Some(Step::Child(x)), Some(Step::Child(y))) if x < y
    );
    parts_first
        && wait.path[common..].iter().all(|s| matches!(s, Step::Child(_)))
        && wait.guard_depths.iter().all(|d| *d <= common)
}

/// The constant count of a wait, if it has one.
fn constant_count(event: &Event) -> Option<i64> {
    match &event.kind {
        EventKind::Wait { until, .. } => until.runs().and_then(tirproof_ir::Expr::as_int),
        _ => None,
    }
}

/// The two waits nearest before a point that run surely before it, both with a constant
/// count: the waits they cover cannot govern the point (see the module docs).
struct Cover {
    /// The rank of the earlier of the two.
    earlier: usize,
    /// The larger of their counts.
    count: i64,
}

/// How many waits sorted before a point [`cover`] looks at.
const COVER_SEARCH: usize = 64;

/// The waits of `launch` with a constant count that run surely before `at`, nearest first
/// (rank and count), looked for backwards from the waits sorted before it (`passed` of them).
/// A point whose nearest such waits lie further back than COVER_SEARCH waits keeps every wait
/// they would cover (slower, never less exact).
fn surely_before_nearest<'a>(
    model: &'a Model,
    order: &'a WaitOrder,
    at: &'a Event,
    launch: Option<LoopId>,
    passed: usize,
) -> impl Iterator<Item = (usize, i64)> + 'a {
    (passed.saturating_sub(COVER_SEARCH)..passed).rev().filter_map(move |rank| {
        let event = model.event(order.sorted[rank]);
        let sure = model.launch_of(event) == launch && surely_before(event, at);
        sure.then(|| constant_count(event).map(|c| (rank, c))).flatten()
    })
}

/// The [`Cover`] of `at`: its two nearest surely-before waits; `None` when there are not two.
fn cover(model: &Model, events: &QueueEvents, at: &Event, launch: Option<LoopId>, passed: usize) -> Option<Cover> {
    let mut nearest = surely_before_nearest(model, &events.order, at, launch, passed);
    let ((_, nearer), (earlier, count)) = (nearest.next()?, nearest.next()?);
    Some(Cover { earlier, count: count.max(nearer) })
}

/// The waits of a queue (`events.waits`) that can govern `at`: all but those of another launch,
/// those that never run before it and those two surely-before waits cover (see the module
/// docs), in the order of `events.waits`.
pub fn governing_candidates(model: &Model, events: &QueueEvents, at: EventId) -> Vec<EventId> {
    let at_event = model.event(at);
    let launch = model.launch_of(at_event);
    let order = &events.order;
    let passed = order.sorted.partition_point(|w| model.event(*w).path < at_event.path);
    if !order.chained || rank_order_open(model, order, passed, &at_event.path) {
        return general_candidates(model, events, at, launch, passed);
    }
    let cover = cover(model, events, at_event, launch, passed);
    // The waits after `at` that share a loop with it (their earlier iterations come before
    // it): those whose path starts with `at`'s up to its outermost loop, a range of ranks.
    let shared = match at_event.path.iter().position(|s| matches!(s, Step::Loop(_))) {
        Some(j) => {
            let prefix = &at_event.path[..=j];
            // Sorted, the paths below `prefix` come first, then those that start with it.
            let end = order.sorted.partition_point(|w| {
                let p = &model.event(*w).path;
                p.as_slice() < prefix || p.starts_with(prefix)
            });
            end.max(passed)
        }
        None => passed,
    };
    // The ranks kept: from the cover's earlier wait up to `shared`, and below it those whose
    // count is unknown or below the cover's (all below `shared` without a cover).
    let from = cover.as_ref().map_or(shared, |c| c.earlier.min(shared));
    let below = |ranks: &[usize]| ranks[..ranks.partition_point(|r| *r < from)].to_vec();
    let mut kept: Vec<usize> = (from..shared).collect();
    match &cover {
        Some(c) => {
            kept.extend(below(&order.ranks_uncounted));
            for ranks in order.ranks_by_count.range(..c.count).map(|(_, r)| r) {
                kept.extend(below(ranks));
            }
        }
        None => kept.extend(0..from),
    }
    let mut out: Vec<usize> = kept.into_iter().map(|r| order.index[r]).filter(|i| order.launch[*i] == launch).collect();
    out.sort_unstable();
    out.into_iter().map(|i| events.waits[i]).collect()
}

/// Whether the rank order leaves "never before" open for `at`: the first wait sorted at or
/// after `passed` is not after `at` by [`before_every_time`] (its path extends `at`'s, or
/// they part at steps of two kinds). Otherwise every wait sorted after it is after `at` too
/// (the relation chains along the sorted order).
fn rank_order_open(model: &Model, order: &WaitOrder, passed: usize, at: &[Step]) -> bool {
    order.sorted.get(passed).is_some_and(|w| !before_every_time(at, &model.event(*w).path))
}

/// [`governing_candidates`] by comparing paths wait by wait: for queues whose waits'
/// order is not read from their ranks.
fn general_candidates(
    model: &Model,
    events: &QueueEvents,
    at: EventId,
    launch: Option<LoopId>,
    passed: usize,
) -> Vec<EventId> {
    let at_event = model.event(at);
    let order = &events.order;
    // Surely-before waits part from `at`'s path at a smaller child, so they sort before it
    // whatever the order of the others.
    let cover = cover(model, events, at_event, launch, passed).map(|c| (order.sorted[c.earlier], c.count));
    events
        .waits
        .iter()
        .enumerate()
        .filter(|(i, &w)| {
            let event = model.event(w);
            let covered = cover.is_some_and(|(earlier, count)| {
                w != earlier
                    && order.count[*i].is_some_and(|c| c >= count)
                    && before_every_time(&event.path, &model.event(earlier).path)
            });
            order.launch[*i] == launch && !covered && !never_before(&event.path, &at_event.path)
        })
        .map(|(_, &w)| w)
        .collect()
}

/// The nearest wait that runs surely before a point and covers other waits unless it is
/// itself loosened (see [`lone_cover`]). (Also covered: the waits all of whose instances
/// before the point run before `W`, with a count of at least `c`, as a pair of covering
/// waits covers them.)
pub struct LoneCover {
    pub wait: EventId,
    /// The waits it covers.
    pub covered: Vec<EventId>,
}

/// One surely-before wait `W` (the nearest, with a constant count `c`) covers a wait `W'`
/// when every instance of `W'` before the point ran before the current iteration of `L`, the
/// innermost loop around both `W` and the point (`W'` lies outside `L`'s body, or after the
/// point in it and in no loop inside `L` with it), and `count(W') >= c - m`, where `m` commits
/// of the queue run surely in that iteration before `W` (children of `L`'s body, outside any
/// inner loop, branch or deeper condition): `W` then forced at least `m - c` more groups than
/// `W'` had been able to. Unlike a pair of surely-before waits, one alone does not cover a
/// wait while it is itself loosened: the verifier keeps the waits it covers, for the checks
/// that loosen it only. `None` without such a `W` or without anything it covers.
pub fn lone_cover(model: &Model, events: &QueueEvents, at: EventId, candidates: &[EventId]) -> Option<LoneCover> {
    let at_event = model.event(at);
    let launch = model.launch_of(at_event);
    let order = &events.order;
    let passed = order.sorted.partition_point(|w| model.event(*w).path < at_event.path);
    let (rank, count) = surely_before_nearest(model, order, at_event, launch, passed).next()?;
    let wait = order.sorted[rank];
    let wait_path = &model.event(wait).path;
    let common = common_prefix(wait_path, &at_event.path);
    // `L`'s body: the common part up to its last loop step (none: the function's body, run
    // once, where only the waits before `W` are covered).
    let body = match wait_path[..common].iter().rposition(|s| matches!(s, Step::Loop(_))) {
        Some(l) => &wait_path[..=l],
        None => &wait_path[..0],
    };
    let surely_in_iteration = |event: &Event| {
        event.path.starts_with(body)
            && event.path[body.len()..].iter().all(|s| matches!(s, Step::Child(_)))
            && event.guard_depths.iter().all(|d| *d <= body.len())
    };
    // In the function's body (no loop) only the waits before `W` are covered: no count needed.
    let commits = if body.is_empty() {
        0
    } else {
        events
            .commits
            .iter()
            .map(|k| model.event(*k))
            .filter(|k| surely_in_iteration(k) && before_every_time(&k.path, wait_path) && model.launch_of(k) == launch)
            .count()
    };
    let threshold = count - i64::try_from(commits).ok()?;
    let before_iteration = |event: &Event| {
        (!body.is_empty() && !event.path.starts_with(body)) || {
            let shared = common_prefix(&event.path, &at_event.path);
            before_every_time(&at_event.path, &event.path)
                && !event.path[body.len()..shared].iter().any(|s| matches!(s, Step::Loop(_)))
        }
    };
    let covered: Vec<EventId> = candidates
        .iter()
        .copied()
        .filter(|&w| {
            let event = model.event(w);
            let before_wait =
                before_every_time(&event.path, wait_path) && constant_count(event).is_some_and(|c| c >= count);
            let before_commits = before_iteration(event) && constant_count(event).is_some_and(|c| c >= threshold);
            w != wait && (before_wait || before_commits)
        })
        .collect();
    (!covered.is_empty()).then_some(LoneCover { wait, covered })
}

/// How many steps the paths `a` and `b` share from their start.
pub fn common_prefix(a: &[Step], b: &[Step]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Whether `event` is a straight-line point: outside every loop and branch, so every
/// instance of a commit textually before it runs before it.
pub fn is_straight_line(event: &Event) -> bool {
    event.path.iter().all(|s| matches!(s, Step::Child(_)))
}

/// Groups committed before straight-line points, as a prefix sum over a queue's commits in
/// program order (the commits of code outside every launch: a straight-line point is host
/// code). `sums[k]` is the number of instances of the first `k` commits; it is extended as
/// points further down are asked for, with the count of each commit before the point that
/// first passes it (every straight-line point after a commit sees all its instances).
#[derive(Default)]
pub struct CommitPrefix {
    /// The queue's host commits, in program order.
    order: Vec<EventId>,
    sums: Vec<Int>,
}

impl CommitPrefix {
    /// The prefix of `commits` (a queue's) that run outside every launch, in program order.
    /// `None` when two of them are not ordered by [`before_every_time`] one way or the other
    /// (their order, and so the prefix, is not read from their paths).
    pub fn new(model: &Model, commits: &[EventId]) -> Option<Self> {
        let mut order: Vec<EventId> =
            commits.iter().copied().filter(|k| model.launch_of(model.event(*k)).is_none()).collect();
        order.sort_by(|a, b| model.event(*a).path.cmp(&model.event(*b).path));
        let ordered = order.windows(2).all(|w| before_every_time(&model.event(w[0]).path, &model.event(w[1]).path));
        ordered.then(|| CommitPrefix { order, sums: vec![Int::from_i64(0)] })
    }

    /// How many of the commits precede the straight-line point `at`, or `None` when one of
    /// them is neither before nor after it by its path. (The commits are ordered pairwise and
    /// `at`'s path is children only, so its two neighbours in the order decide for all.)
    /// A commit is not before itself: at one of the commits, the next one decides.
    pub fn passed(&self, model: &Model, at: EventId) -> Option<usize> {
        let at_path = &model.event(at).path;
        let passed = self.order.partition_point(|k| model.event(*k).path < *at_path);
        let path = |k: &EventId| &model.event(*k).path;
        let before = passed == 0 || before_every_time(path(&self.order[passed - 1]), at_path);
        let next = self.order[passed..].iter().find(|k| **k != at);
        let after = next.is_none_or(|k| before_every_time(at_path, path(k)));
        (before && after).then_some(passed)
    }

    /// The sum over the first `passed` commits, extending the sums with `count(k)` for each
    /// commit `k` not summed yet.
    pub fn sum<E>(&mut self, passed: usize, mut count: impl FnMut(EventId) -> Result<Int, E>) -> Result<Int, E> {
        while self.sums.len() <= passed {
            let k = self.order[self.sums.len() - 1];
            let next = super::fold::add(&[self.sums[self.sums.len() - 1].clone(), count(k)?]);
            self.sums.push(next);
        }
        Ok(self.sums[passed].clone())
    }
}
