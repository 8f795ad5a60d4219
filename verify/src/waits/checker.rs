//! The checker of one function's waits: the solver session every query runs on, the record
//! of the checks (how many, their SMT-LIB dumps, the loops whose encoding is bounded), and
//! the counts the obligations are built from.
//!
//! For a use `u` of an address that an async store instance `s` wrote earlier, the group of
//! `s` must be complete: `group(s) < completed(u)`, where `completed(u)` is the most any
//! earlier wait forced, `max over wait statements W of committed(last W before u) - count(W)`.
//! This takes the last instance of each wait statement, which is exact when a wait's
//! `committed - count` does not decrease from one of its instances to the next (true of
//! pipelined loops). A wait in an inner loop whose count depends on that loop's variable
//! (`T.min(j, 1)`, `j * 5`) may force the most at an earlier iteration: every iteration of
//! the inner loop's last execution is taken too, its first [`INNER_WAITS_ENUMERATED`] of them
//! (all of them for a constant extent up to that). Whenever the last instance may not force
//! the most (a count that mentions a serial loop's variable or reads memory, a wait in a loop
//! whose bounds move: see [`Checker::last_forces_most`]), a counterexample is confirmed before
//! it is reported: with every variable pinned to its value, no instance of a wait before the
//! use may complete the group ([`Completion`]). When one does, the obligation is checked again
//! under "no earlier instance completes it", quantified over the instances' loop values, so a
//! proof stays a proof and a refutation is always exact; where the earlier instances have no
//! exact encoding, the counterexample is Unknown. Queries state "not complete" as [`incomplete`], a conjunction
//! over the waits, rather than through the maximum: the solver then needs no case split per
//! wait.
//!
//! A wait's count is `count + slack` when the query declares a slack for it ([`Slack`]): one
//! encoding then answers "is it still safe with this wait loosened by k" for every k.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tirproof_ir::Expr;
use z3::ast::{Bool, Int};

use super::encode::{declare, Enc, Encoder, Instance, Unsupported};
use super::fold::{add, and, ge, implies, ite, lt, max, mul, or, sub};
use super::model::{Access, Event, EventId, EventKind, LoopId, Model, QueueId, Until};
use super::names::{InstanceRole, Lane, Role, Thread};
use super::report::{Dump, DumpKind, DumpOutcome};
use super::summary::{governing_candidates, is_straight_line, lone_cover, queue_events, CommitPrefix, QueueEvents};
use super::Options;
use crate::solver::{budget_spent, ObligationId, Outcome, Query, Scope, Session, Watchdog, BUDGET_SPENT};

/// A change to one wait's count, to ask whether a larger count would still be safe: `by`
/// more, or (with `at_least`) any amount from `by` on.
#[derive(Clone, Copy, Debug)]
pub struct Loosen {
    pub wait: EventId,
    pub by: i64,
    pub at_least: bool,
}

/// Which covers [`Checker::completed`] applies (see `summary.rs`): pairs of surely-before
/// waits always; a lone one only where the obligation fixes the slack of every wait it
/// mentions, covered ones included ([`mentioned`]), since a covered effect counts under its
/// cover's slack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Covers {
    Pairs,
    AlsoLone,
}

/// A wait statement's last instance before a point.
#[derive(Clone)]
pub struct WaitEffect {
    pub wait: EventId,
    /// Whether the instance exists.
    pub exists: Bool,
    /// How many groups it forced complete.
    pub forced: Int,
    /// When set, the effect counts only under this condition (a covering wait is loosened:
    /// see `summary::lone_cover`); otherwise that wait covers it.
    pub only_when: Option<Bool>,
}

/// One slack variable per wait of a queue, added to the wait's count in a query; its value
/// is fixed per check ([`Slack::facts`]).
#[derive(Clone, Default)]
pub struct Slack(BTreeMap<EventId, Int>);

impl Slack {
    /// Declares a slack for each of `waits` in `query`.
    pub fn declare(query: &mut Query, model: &Model, waits: &[EventId]) -> Enc<Slack> {
        let mut slack = BTreeMap::new();
        for &w in waits {
            slack.insert(w, declare(query, model, Role::Slack(w))?);
        }
        Ok(Slack(slack))
    }

    /// The facts that fix every slack: `loosen.by` (or at least that) for the loosened wait,
    /// 0 for the others.
    pub fn facts(&self, loosen: Option<Loosen>) -> Vec<Bool> {
        self.0.iter().map(|(w, s)| Self::fact(*w, s, loosen)).collect()
    }

    /// [`Slack::facts`] for the slacks of `waits` only (and the loosened wait's): a round
    /// whose obligations mention no other slack need not fix the others, and fixing all of
    /// them in every round of a program with thousands of waits is quadratic.
    pub fn facts_for(&self, waits: &BTreeSet<EventId>, loosen: Option<Loosen>) -> Vec<Bool> {
        let loosened = loosen.map(|l| l.wait).filter(|w| !waits.contains(w));
        let wanted = waits.iter().chain(loosened.as_ref());
        wanted.filter_map(|w| self.0.get(w).map(|s| Self::fact(*w, s, loosen))).collect()
    }

    fn fact(w: EventId, s: &Int, loosen: Option<Loosen>) -> Bool {
        match loosen.filter(|l| l.wait == w) {
            Some(Loosen { by, at_least: true, .. }) => s.ge(Int::from_i64(by)),
            Some(Loosen { by, .. }) => s.eq(Int::from_i64(by)),
            None => s.eq(Int::from_i64(0)),
        }
    }

    fn of(&self, wait: EventId) -> Option<&Int> {
        self.0.get(&wait)
    }
}

/// The largest constant extent of an inner loop whose waits are all taken into account.
pub const INNER_WAITS_ENUMERATED: i64 = 16;

/// The logic the checker's solver is configured for: the queries are integer arithmetic
/// (linear but for products with a symbolic extent). Of the configurations measured on the
/// fuzzers' programs, this one was fastest: the verifier took 20% less time than with Z3
/// configuring each check itself, and 25% less than with `QF_LIA`'s configuration.
const QUERY_LOGIC: &str = "QF_UFLIA";

/// How many checks ran, and their SMT-LIB scripts when dumps are asked for. (Counted behind
/// a shared reference: a check runs while its scope borrows the checker's session.)
pub struct Log {
    queries: Cell<usize>,
    dumps: Option<RefCell<Vec<Dump>>>,
    name: String,
    /// The tightness probe the checks now running belong to, if any.
    probing: Cell<Option<DumpKind>>,
}

impl Log {
    /// Checks `obligation` of `scope`, counting it and keeping its script with its answer.
    pub fn check(&self, scope: &Scope, obligation: ObligationId, label: &str) -> Outcome {
        self.count();
        let outcome = scope.check(obligation);
        if let Some(dumps) = &self.dumps {
            dumps.borrow_mut().push(Dump {
                name: format!("{}_{label}", self.name),
                kind: self.probing.get().unwrap_or(DumpKind::AsWritten),
                outcome: match &outcome {
                    Outcome::Holds => DumpOutcome::Held,
                    Outcome::Fails(_) => DumpOutcome::Failed,
                    Outcome::Unknown(_) => DumpOutcome::Unknown,
                },
                script: scope.to_smtlib(obligation),
            });
        }
        outcome
    }

    /// Marks the checks until the returned guard is dropped as the tightness probe `loosen` of
    /// the wait at `line`.
    pub fn probing(&self, loosen: Loosen, line: u32) -> Probing<'_> {
        self.probing.set(Some(DumpKind::TightnessProbe { line, by: loosen.by, at_least: loosen.at_least }));
        Probing(self)
    }

    /// Counts a check run outside [`Log::check`].
    pub fn count(&self) {
        self.queries.set(self.queries.get() + 1);
    }

    pub fn queries(&self) -> usize {
        self.queries.get()
    }

    /// The scripts kept so far (none when dumps were not asked for).
    pub fn take_dumps(&mut self) -> Vec<Dump> {
        self.dumps.as_mut().map(|d| std::mem::take(d.get_mut())).unwrap_or_default()
    }
}

/// While alive, the log's checks are a tightness probe (see [`Log::probing`]).
pub struct Probing<'l>(&'l Log);

impl Drop for Probing<'_> {
    fn drop(&mut self) {
        self.0.probing.set(None);
    }
}

pub struct Checker<'m> {
    pub model: &'m Model,
    pub session: Session<'m>,
    pub log: Log,
    /// Loops whose conditions were counted by enumeration: proofs assume they have at most
    /// `ENUMERATED_ITERATIONS` iterations.
    pub bounded: BTreeSet<LoopId>,
    pub timeout: Duration,
    pub name: String,
    /// The waits and commits of each queue.
    queues: BTreeMap<QueueId, QueueEvents>,
}

impl<'m> Checker<'m> {
    /// The checker of function `name`, with the time limit and dumps `options` ask for.
    pub fn new(model: &'m Model, name: &str, options: &Options, watchdog: &'m Watchdog<'m>) -> Self {
        let mut checker = Checker {
            model,
            session: Session::for_logic(watchdog, QUERY_LOGIC),
            log: Log {
                queries: Cell::new(0),
                dumps: options.dump_smtlib.then(RefCell::default),
                probing: Cell::new(None),
                name: name.to_owned(),
            },
            bounded: BTreeSet::new(),
            timeout: options.timeout,
            name: name.to_owned(),
            queues: BTreeMap::new(),
        };
        let mut queues = queue_events(model);
        for events in queues.values_mut() {
            events.lasts_force_most = events.waits.iter().all(|w| checker.last_forces_most(*w));
        }
        checker.queues = queues;
        checker
    }

    /// A query of this function with the checker's time limit.
    pub fn query(&self, what: &str) -> Query {
        Query::new(format!("{} {what}", self.name)).with_timeout(self.timeout)
    }

    /// Adds the assumptions of the bounded encodings (and the ranges of data unknowns) to the
    /// query, and remembers the bounded loops.
    pub fn assume_bounds(&mut self, enc: &mut Encoder, query: &mut Query) {
        for (l, fits) in enc.bounded.drain(..) {
            // A loop of at most that many iterations anyway is counted exactly.
            if fits.as_bool() != Some(true) {
                query.assume(fits);
                self.bounded.insert(l);
            }
        }
        for fact in enc.deferred.drain(..) {
            query.assume(fact);
        }
        for fact in enc.trap_free.drain(..) {
            query.trap_free(fact);
        }
        for fact in enc.hints.drain(..) {
            query.hint(fact);
        }
    }

    /// How far the last instances of the waits of `q` before `at` tell whether group `group`
    /// is complete there (see [`Completion`]).
    pub fn completion(&self, q: QueueId, at: &Instance, group: &Int, slack: &Slack) -> Completion {
        self.completion_at(q, &[(Bool::from_bool(true), at.clone())], group, slack)
    }

    /// [`Checker::completion`] where the group must be complete at any one of several points
    /// (each with the condition under which it counts): a barrier's instances in the writer
    /// thread, for another thread's read.
    /// Only whether the last instances are exact is decided here; the earlier instances are
    /// encoded when a counterexample needs them ([`Completion::Pending`]), not for every pair.
    pub fn completion_at(&self, q: QueueId, points: &[(Bool, Instance)], group: &Int, slack: &Slack) -> Completion {
        if self.lasts_force_most(q) {
            return Completion::Exact;
        }
        Completion::Pending { queue: q, points: points.to_vec(), group: group.clone(), slack: slack.clone() }
    }

    /// The encoding of the earlier instances of a [`Completion::Pending`].
    pub(super) fn resolve(&self, q: QueueId, points: &[(Bool, Instance)], group: &Int, slack: &Slack) -> Completion {
        let inexact: Vec<EventId> = self.waits(q).into_iter().filter(|w| !self.last_forces_most(*w)).collect();
        let mut scratch = self.query("earlier waits");
        let build = || -> Enc<Option<EarlierCompletion>> {
            let mut enc = Encoder::new(self.model, &mut scratch, Thread::This)?;
            let (mut bound, mut completes) = (Vec::new(), Vec::new());
            for w in inexact {
                let unknowns = enc.unknowns();
                let (wi, runs) = enc.instance(&mut scratch, w, InstanceRole::EarlierWait(w))?;
                if enc.unknowns() != unknowns {
                    // A condition on the wait read from memory: one per query, not per instance.
                    return Ok(None);
                }
                let vals: Vec<Int> = wi.vals.values().cloned().collect();
                bound.extend(wi.vals.iter().filter(|(l, _)| !enc.threads.contains_key(l)).map(|(_, v)| v.clone()));
                // Values the count reads from memory differ from instance to instance: each is
                // a function of the instance's loop values.
                enc.per_instance = Some(vals);
                let forced = sub(&self.committed(&mut enc, q, &wi)?, &self.count_of(&mut enc, w, &wi, slack)?);
                enc.per_instance = None;
                let before_a_point: Vec<Bool> =
                    points.iter().map(|(counts, at)| and(&[counts.clone(), enc.before(&wi, at)])).collect();
                completes.push(and(&[runs, or(&before_a_point), lt(group, &forced)]));
            }
            // Bounded encodings hold only under their own assumptions, which cannot be
            // quantified over here.
            if enc.bounded.iter().any(|(_, fits)| fits.as_bool() != Some(true)) {
                return Ok(None);
            }
            let reads_memory = !enc.deferred.is_empty();
            let ranges = std::mem::take(&mut enc.deferred);
            Ok(Some(EarlierCompletion { bound, completes: or(&completes), ranges, reads_memory }))
        };
        match build() {
            Ok(Some(witness)) => Completion::Witnessed(witness),
            Ok(None) => Completion::Inexact(
                "an earlier instance of a wait may complete more groups than its last, and its conditions read memory or its loops are counted by enumeration".into(),
            ),
            Err(Unsupported(why)) => Completion::Inexact(format!(
                "an earlier instance of a wait may complete more groups than its last, and it has no exact encoding: {why}"
            )),
        }
    }

    /// Whether the last instance of `wait` before any point forces the most of its instances
    /// before it: `committed` never decreases, so it does when the count is the same at every
    /// instance (it mentions no serial loop's variable and reads no memory) and the last
    /// instance is found exactly (its loops' bounds mention no loop variable and read no
    /// memory but once, its conditions read no memory).
    pub fn last_forces_most(&self, wait: EventId) -> bool {
        let m = self.model;
        let event = m.event(wait);
        let EventKind::Wait { until, .. } = &event.kind else { return true };
        // What a wait on tokens leaves in flight follows its tokens, instance by instance.
        let Until::InFlight(count) = until else { return false };
        let fixed = |e: &Expr| one_value(m, e);
        // A bound read from memory by a loop that runs once (inside no serial loop) is one value
        // for every instance.
        let once = |e: &Expr, info: &super::model::LoopInfo| {
            super::model::vars_of(e).iter().all(|v| m.is_loop_var(*v).is_none())
                && info.enclosing.iter().all(|l| m.loop_info(*l).per_thread)
        };
        // Conditions on loop variables are found exactly by `last_before` (or the check is
        // bounded, and says so), and so is the last instance that ran under the wait's own
        // condition on data (the solver chooses it); a loop's condition read from memory is
        // not.
        let exact_condition = |g: &Expr| !m.varies_with_data(g);
        let serial = m.serial_loops_of(event);
        // In no serial loop, a thread runs the wait at most once: its last instance is its
        // only one, whatever its count.
        (fixed(count) || serial.is_empty())
            && serial.iter().all(|l| {
                let info = m.loop_info(*l);
                let bound = |e: &Expr| fixed(e) || once(e, info);
                bound(&info.min) && bound(&info.extent) && info.guards.iter().all(exact_condition)
            })
    }

    pub fn waits(&self, q: QueueId) -> Vec<EventId> {
        self.queue_waits(q).to_vec()
    }

    /// Whether the last instance of every wait of `q` forces the most of its instances (see
    /// [`Checker::last_forces_most`]).
    pub fn lasts_force_most(&self, q: QueueId) -> bool {
        self.queues.get(&q).is_none_or(|e| e.lasts_force_most)
    }

    fn queue_waits(&self, q: QueueId) -> &[EventId] {
        self.queues.get(&q).map_or(&[], |e| &e.waits)
    }

    fn commits(&self, q: QueueId) -> &[EventId] {
        self.queues.get(&q).map_or(&[], |e| &e.commits)
    }

    pub fn events_where(&self, pred: impl Fn(&EventKind) -> bool) -> Vec<EventId> {
        self.model.events_by_id().filter(|(_, e)| pred(&e.kind)).map(|(id, _)| id).collect()
    }

    /// Groups of `q` committed before instance `at` (by its thread, in its launch).
    pub fn committed(&self, enc: &mut Encoder, q: QueueId, at: &Instance) -> Enc<Int> {
        stop_when_spent()?;
        if let Some(sum) = self.committed_straight_line(enc, q, at)? {
            return Ok(sum);
        }
        let mut terms = vec![Int::from_i64(0)];
        for &k in self.commits(q).iter().filter(|k| self.model.same_launch(**k, at.event)) {
            terms.push(enc.count_before(k, at)?);
        }
        Ok(add(&terms))
    }

    /// [`Checker::committed`] at a straight-line point, from the queue's prefix sums (see
    /// `summary.rs`); `None` when `at` is not one or the commits' order is not read from
    /// their paths.
    fn committed_straight_line(&self, enc: &mut Encoder, q: QueueId, at: &Instance) -> Enc<Option<Int>> {
        let event = self.model.event(at.event);
        if !is_straight_line(event) {
            return Ok(None);
        }
        let mut prefix = match enc.commit_prefixes.remove(&q) {
            Some(known) => known,
            None => CommitPrefix::new(self.model, self.commits(q)),
        };
        let sum = match prefix.as_ref().and_then(|p| p.passed(self.model, at.event)) {
            Some(passed) => prefix.as_mut().map(|p| p.sum(passed, |k| enc.count_before(k, at))).transpose(),
            None => Ok(None),
        };
        enc.commit_prefixes.insert(q, prefix);
        sum
    }

    /// The in-flight count of a wait at one of its instances, plus its slack if it has one.
    /// A wait on tokens alone leaves what its tokens allow in flight (see `tokens.rs`).
    pub fn count_of(&self, enc: &mut Encoder, wait: EventId, at: &Instance, slack: &Slack) -> Enc<Int> {
        let n = match self.written_count(enc, wait, at)? {
            Some(n) => n,
            None => self.token_wait(enc, wait, at)?.keep,
        };
        Ok(match slack.of(wait) {
            Some(s) => add(&[n, s.clone()]),
            None => n,
        })
    }

    /// The count written on a wait (alone, or claimed to cover its tokens) at one of its
    /// instances; `None` for a wait on tokens alone.
    pub fn written_count(&self, enc: &mut Encoder, wait: EventId, at: &Instance) -> Enc<Option<Int>> {
        let EventKind::Wait { until, .. } = &self.model.event(wait).kind else {
            return Err(Unsupported("not a wait".into()));
        };
        until.runs().map(|count| enc.wait_count(&count.clone(), &at.vals)).transpose()
    }

    /// `completed(u)` and, per wait statement, whether its last instance exists and what it
    /// forced (`committed - count`), leaving out the waits that `covers` says cannot give it.
    pub fn completed(
        &self,
        enc: &mut Encoder,
        q: QueueId,
        at: &Instance,
        slack: &Slack,
        covers: Covers,
    ) -> Enc<(Int, Vec<WaitEffect>)> {
        stop_when_spent()?;
        let mut done = Int::from_i64(0);
        let mut per_wait = Vec::new();
        // A wait of another launch is another thread's, whatever its thread index; a wait that
        // two nearer ones cover cannot govern the point (see `summary.rs`).
        let Some(events) = self.queues.get(&q) else { return Ok((done, per_wait)) };
        let candidates: Vec<EventId> = governing_candidates(self.model, events, at.event)
            .into_iter()
            .filter(|w| self.model.same_launch(*w, at.event))
            .collect();
        let cover = match covers {
            Covers::AlsoLone => lone_cover(self.model, events, at.event, &candidates),
            Covers::Pairs => None,
        };
        for wait in candidates {
            // A covered wait counts only while its cover is loosened; never where the cover has
            // no slack to loosen.
            let only_when = match &cover {
                Some(c) if c.covered.contains(&wait) => match slack.of(c.wait) {
                    Some(s) => Some(s.ge(Int::from_i64(1))),
                    None => continue,
                },
                _ => None,
            };
            let (exists, last) = enc.last_before(wait, at)?;
            let mut instances = vec![(exists, last.clone())];
            instances.extend(self.earlier_inner_iterations(enc, wait, at, &instances[0])?);
            for (exists, inst) in instances {
                let forced = sub(&self.committed(enc, q, &inst)?, &self.count_of(enc, wait, &inst, slack)?);
                if only_when.is_none() {
                    done = ite(&exists, &max(&done, &forced), &done);
                }
                per_wait.push(WaitEffect { wait, exists, forced, only_when: only_when.clone() });
            }
        }
        Ok((done, per_wait))
    }

    /// The other iterations of the inner loop around `wait` in its last execution before
    /// `at` (with whether each ran), when the count depends on that loop's variable and its
    /// extent is a small constant (see the module docs).
    fn earlier_inner_iterations(
        &self,
        enc: &mut Encoder,
        wait: EventId,
        at: &Instance,
        (exists, last): &(Bool, Instance),
    ) -> Enc<Vec<(Bool, Instance)>> {
        let m = self.model;
        let EventKind::Wait { until, .. } = &m.event(wait).kind else { return Ok(Vec::new()) };
        // What a wait on tokens alone leaves in flight may depend on every loop around it.
        let mentions = |l: &LoopId| match until.runs() {
            Some(count) => super::model::vars_of(count).contains(&m.loop_info(*l).var.id()),
            None => true,
        };
        let around_use = m.loops_of(m.event(at.event));
        let inner: Vec<LoopId> =
            m.serial_loops_of(m.event(wait)).into_iter().filter(|l| !around_use.contains(l) && mentions(l)).collect();
        let [l] = inner.as_slice() else { return Ok(Vec::new()) };
        // The inner loop's bounds may depend on the outer loops' values (a triangular loop).
        let (lo, hi) = enc.loop_bounds_at(*l, &last.vals)?;
        let Some(first) = lo.as_i64() else { return Ok(Vec::new()) };
        let end = match hi.as_i64() {
            Some(end) if end - first <= INNER_WAITS_ENUMERATED => end,
            // Only the first iterations of a longer or symbolic range: fewer waits, never more.
            _ => first + INNER_WAITS_ENUMERATED,
        };
        let Some(last_value) = last.vals.get(l).cloned() else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        // The loops inside `l` keep the last instance's values, which must be in range at the
        // new value of `l` too (a triangular `range(i)` is empty at i = 0): an instance outside
        // them never ran.
        let loops = m.serial_loops_of(m.event(wait));
        let inside: Vec<LoopId> = loops.iter().skip_while(|x| *x != l).skip(1).copied().collect();
        for value in first..end {
            let v = Int::from_i64(value);
            let mut inst = last.clone();
            inst.vals.insert(*l, v.clone());
            let mut ran = vec![exists.clone(), lt(&v, &last_value), enc.holds_at_event(wait, *l, &v)?];
            for l2 in &inside {
                let (lo2, hi2) = enc.loop_bounds_at(*l2, &inst.vals)?;
                let Some(v2) = inst.vals.get(l2).cloned() else { return Ok(Vec::new()) };
                ran.push(and(&[ge(&v2, &lo2), lt(&v2, &hi2)]));
            }
            out.push((and(&ran), inst));
        }
        Ok(out)
    }

    /// The group an async store instance belongs to: its commit scope's, or for a store
    /// outside every commit scope the next group its thread commits, whose index is the
    /// number of groups committed before the store (see [`Model::store_queue`]).
    pub fn group(&self, enc: &mut Encoder, q: QueueId, store: &Instance) -> Enc<Int> {
        let EventKind::AsyncStore { commit, .. } = &self.model.event(store.event).kind else {
            return Err(Unsupported("not an async store".into()));
        };
        let Some(k) = commit else { return self.committed(enc, q, store) };
        let commit_loops = self.model.loops_of(self.model.event(*k));
        let vals = store.vals.iter().filter(|(l, _)| commit_loops.contains(l)).map(|(l, v)| (*l, v.clone())).collect();
        self.committed(enc, q, &Instance { event: *k, vals })
    }

    /// The scalar element an access touches (a vector access: one of its lanes, chosen freely,
    /// with the lane variables of `instance`, the role of `inst`).
    pub fn address(&self, enc: &mut Encoder, query: &mut Query, instance: InstanceRole, inst: &Instance) -> Enc<Int> {
        let access = access_of(self.model.event(inst.event)).ok_or_else(|| Unsupported("not an access".into()))?;
        let node = access.buffer.node();
        let shape: Vec<Expr> = node.shape.clone();
        let strides: Vec<Expr> = if node.strides.is_empty() { row_major(&shape) } else { node.strides.clone() };
        let at = &inst.vals;
        let mut flat = vec![enc.int(&node.elem_offset.clone(), at, Some(query))?];
        let mut lane_terms = Vec::new();
        for (d, index) in access.indices.iter().enumerate() {
            let stride = enc.int(&strides.get(d).cloned().unwrap_or_else(|| Expr::int(1)), at, Some(query))?;
            let (base, step, lanes) = match index {
                Expr::Ramp { base, stride, lanes } => ((**base).clone(), Some((**stride).clone()), *lanes),
                other => (other.clone(), None, 1),
            };
            flat.push(mul(&[enc.int(&base, at, Some(query))?, stride.clone()]));
            if let Some(step) = step {
                let lane = self.lane_in(query, Role::Lane { instance, lane: Lane::Index(d) }, i64::from(lanes))?;
                lane_terms.push(mul(&[lane, enc.int(&step, at, Some(query))?, stride]));
            }
        }
        let elem_lanes = i64::from(node.dtype.lanes);
        let mut scalar = mul(&[add(&flat), Int::from_i64(elem_lanes)]);
        if elem_lanes > 1 {
            let lane = self.lane_in(query, Role::Lane { instance, lane: Lane::Element }, elem_lanes)?;
            scalar = add(&[scalar, lane]);
        }
        lane_terms.iter().for_each(|t| scalar = add(&[scalar.clone(), mul(&[t.clone(), Int::from_i64(elem_lanes)])]));
        Ok(scalar)
    }

    /// A fresh lane index of `role` in `[0, lanes)`.
    fn lane_in(&self, query: &mut Query, role: Role, lanes: i64) -> Enc<Int> {
        let lane = declare(query, self.model, role)?;
        query.assume(Bool::and(&[lane.ge(Int::from_i64(0)), lane.lt(Int::from_i64(lanes))]));
        Ok(lane)
    }
}

/// Stops an encoding once the time budget is spent: the solver's watchdog stops checks, but
/// building the terms of a large program (counts at every instance of every wait, per pair)
/// can itself take minutes, and a budget must end it too (the queue is then Unknown).
fn stop_when_spent() -> Enc<()> {
    if budget_spent() {
        return Err(Unsupported(format!("{BUDGET_SPENT} (while encoding)")));
    }
    Ok(())
}

/// How far a counterexample of an obligation built from [`Checker::completed`] can be
/// trusted (see the module docs).
pub enum Completion {
    /// Each wait's last instance before the point forces the most of all its instances
    /// before it: a counterexample is one.
    Exact,
    /// An earlier instance of a wait may force more than its last: a counterexample is one
    /// only where no earlier instance completes the group.
    Witnessed(EarlierCompletion),
    /// As `Witnessed`, with the earlier instances not encoded yet (they are when a
    /// counterexample needs them): where the group must be complete, each point with the
    /// condition under which it counts, and the slack.
    Pending { queue: QueueId, points: Vec<(Bool, Instance)>, group: Int, slack: Slack },
    /// An earlier instance may force more, and the earlier instances have no exact encoding
    /// (why): a counterexample is not trusted.
    Inexact(String),
}

/// "An instance of a wait, before the point, completes the group", over variables of its own
/// (the loop values of the wait's instance), which a refinement binds by a quantifier.
pub struct EarlierCompletion {
    pub(super) bound: Vec<Int>,
    pub(super) completes: Bool,
    /// The ranges of the values the instances read from memory (functions of the bound
    /// variables, so stated inside the quantifier).
    pub(super) ranges: Vec<Bool>,
    /// Whether the counts read memory: then some values make an earlier instance complete
    /// the group in any counterexample, and confirming one is not worth a check.
    pub(super) reads_memory: bool,
}

/// The group `group` is not complete after the waits `effects` (with `completed` as in the
/// module docs: `group >= completed`), as a conjunction over the waits.
pub fn incomplete(group: &Int, effects: &[WaitEffect]) -> Bool {
    let mut all = vec![ge(group, &Int::from_i64(0))];
    all.extend(effects.iter().map(|e| {
        let pending = implies(&e.exists, &ge(group, &e.forced));
        match &e.only_when {
            Some(when) => implies(when, &pending),
            None => pending,
        }
    }));
    and(&all)
}

/// The waits of `effects` whose last instance can exist and that no other wait covers: the
/// only ones whose slack, loosened alone, can change an obligation built from `effects`.
pub fn governing(effects: &[WaitEffect]) -> impl Iterator<Item = EventId> + '_ {
    effects.iter().filter(|e| e.exists.as_bool() != Some(false) && e.only_when.is_none()).map(|e| e.wait)
}

/// The waits whose slack an obligation built from `effects` mentions: those of
/// [`governing`] and the covered ones (each check fixes every slack it mentions).
pub fn mentioned(effects: &[WaitEffect]) -> impl Iterator<Item = EventId> + '_ {
    effects.iter().filter(|e| e.exists.as_bool() != Some(false)).map(|e| e.wait)
}

pub fn is_write(event: &Event) -> bool {
    matches!(event.kind, EventKind::Use { write: true, .. } | EventKind::AsyncStore { .. })
}

pub fn access_of(event: &Event) -> Option<&Access> {
    match &event.kind {
        EventKind::Use { access, .. } | EventKind::AsyncStore { access, .. } => Some(access),
        _ => None,
    }
}

/// The element offset [`Checker::address`] encodes for `access`, relative to the buffer's
/// `elem_offset`, when it is a constant: scalar elements, every index an integer immediate and
/// every stride (the buffer's, or its row-major layout's) a constant. Two accesses through one
/// buffer with different constant offsets never touch one element, whatever the solver is
/// asked, so their pairs need no query.
pub fn constant_offset(access: &Access) -> Option<i64> {
    let node = access.buffer.node();
    if node.dtype.lanes != 1 || access.indices.len() != node.shape.len().max(node.strides.len()) {
        return None;
    }
    let strides: Vec<i64> = if node.strides.is_empty() {
        let dims: Vec<i64> = node.shape.iter().map(Expr::as_int).collect::<Option<_>>()?;
        let mut strides = vec![1i64; dims.len()];
        for d in (0..dims.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1].checked_mul(dims[d + 1])?;
        }
        strides
    } else {
        node.strides.iter().map(Expr::as_int).collect::<Option<_>>()?
    };
    access.indices.iter().zip(&strides).try_fold(0i64, |sum, (index, stride)| {
        let Expr::Int { value, .. } = index else { return None };
        sum.checked_add(value.checked_mul(*stride)?)
    })
}

fn row_major(shape: &[Expr]) -> Vec<Expr> {
    let mut strides = vec![Expr::int(1); shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].clone() * shape[d + 1].clone();
    }
    strides
}

/// Whether `e` has one value at every instance of a thread: it reads no memory and mentions
/// no serial loop's variable, or it is a choice between two equal such values
/// (`T.if_then_else(c, 0, 0)`), or a remainder by 1 or -1 (always 0).
fn one_value(m: &super::model::Model, e: &Expr) -> bool {
    match e {
        Expr::Select { on_true, on_false, .. } | Expr::IfThenElse { on_true, on_false, .. } if on_true == on_false => {
            one_value(m, on_true)
        }
        Expr::Binary { op: tirproof_ir::BinOp::FloorMod | tirproof_ir::BinOp::TruncMod, rhs, .. }
            if matches!(rhs.as_int(), Some(1 | -1)) =>
        {
            true
        }
        _ => {
            !m.varies_with_data(e)
                && super::model::vars_of(e).iter().all(|v| m.is_loop_var(*v).is_none_or(|l| m.loop_info(l).per_thread))
        }
    }
}
