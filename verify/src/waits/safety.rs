//! Safety of one queue: can any use of the memory its async stores write see a pending write?
//!
//! The queue is encoded once ([`QueueSafety`]): one obligation per (store, use) pair on the
//! same storage — the use never sees the store's group pending — and one per pair on memory
//! that threads share — another thread sees the write only after the writer's wait and a
//! barrier. Every wait of the queue has a slack, so the same encoding answers the tightness
//! questions (is it still safe with one wait loosened by k?).
//!
//! A round of checks ([`Checker::safety`], through [`Checker::round`]) checks the pairs one at
//! a time, in a given order,
//! and explains each violation from its counterexample: which instances, which group, and the
//! wait that governed the use. The pairs hold together exactly when each holds, so the
//! verdicts are those of one query of all the pairs.
//!
//! The variables of an instance are named by its role ([`InstanceRole`]): `s3` and `u5` for
//! the store and use events of the same-thread pairs (each encoded once and shared by its
//! pairs), `xs2` and `xu2` for the writer's and the reader's instances of cross-thread pair 2.

use std::cmp::Reverse;
use std::collections::hash_map::{Entry, HashMap};
use std::collections::{BTreeSet, HashSet};
use std::fmt;

use tirproof_ir::{BufferId, VarId};
use z3::ast::{Bool, Int};

use super::checker::{
    access_of, constant_offset, governing, incomplete, mentioned, Checker, Completion, Covers, Loosen, Slack,
    WaitEffect,
};
use super::encode::{Enc, Encoder, Instance, LoopValues, Unsupported};
use super::fold::{and, eq, not, or};
use super::model::{storage, EventId, EventKind, LoopId, QueueId, Step};
use super::names::{loop_values, shown, thread_values, InstanceRole, Shown, Thread};
use super::obligation::{Asked, OnVacuous, Round, RoundOf};
use super::races::{thread_relation, Sharing};
use super::summary::common_prefix;
use crate::solver::{Assignment, Counterexample, ObligationId, Query};

/// A (store, use) pair of a queue: its position in the queue's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PairIndex(usize);

impl PairIndex {
    /// The position among the queue's pairs.
    pub fn index(self) -> usize {
        self.0
    }
}

impl fmt::Display for PairIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pair {}", self.0)
    }
}

/// An async store of a queue and an access of the same storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreUse {
    pub store: EventId,
    pub use_: EventId,
}

/// The accesses of one storage: all of them in event order, and those at a constant element,
/// by buffer and element (see [`Checker::pairs`]).
#[derive(Default)]
struct StorageUses {
    all: Vec<EventId>,
    by_buffer: HashMap<BufferId, HashMap<i64, Vec<EventId>>>,
}

/// The encoded safety of one queue.
pub struct QueueSafety {
    q: QueueId,
    query: Query,
    slack: Slack,
    pairs: Vec<Pair>,
    /// The pairs whose obligations depend on each wait's count, in encoding order.
    by_wait: HashMap<EventId, Vec<PairIndex>>,
}

/// One (store, use) pair: its obligations and the terms that explain a violation.
struct Pair {
    accesses: StoreUse,
    same_thread: ObligationId,
    cross_thread: Option<ObligationId>,
    group: Int,
    done: Int,
    per_wait: Vec<WaitEffect>,
    /// The waits whose count the pair's obligations depend on.
    waits: Vec<EventId>,
    /// The waits whose slack its obligations mention (`waits` and the covered ones).
    mentioned: Vec<EventId>,
    /// How far a counterexample of the same-thread obligation can be trusted.
    completion: Completion,
    /// How far a counterexample of the cross-thread obligation can be trusted.
    cross_completion: Completion,
    /// The values of the use instance's serial loops, outermost first: what orders its
    /// counterexamples in execution.
    use_loops: Vec<(LoopId, Int)>,
}

/// Which of a pair's obligations.
#[derive(Clone, Copy)]
enum PairObligation {
    /// The use, in the store's thread, never sees the store's group pending.
    SameThread,
    /// Another thread sees the write only after the writer's wait and a barrier.
    CrossThread,
}

/// A store instance, its group and the element it writes, shared by the pairs of the store.
struct StoreInstance {
    inst: Instance,
    runs: Bool,
    group: Int,
    address: Int,
}

/// A use instance, the element it touches and what the waits before it completed, shared by
/// the pairs of the use.
struct UseInstance {
    inst: Instance,
    runs: Bool,
    address: Int,
    done: Int,
    per_wait: Vec<WaitEffect>,
}

/// A violation found in a counterexample.
pub struct Violation {
    pub accesses: StoreUse,
    /// The wait that governed the use, if any wait ran before it.
    pub wait: Option<EventId>,
    pub reason: String,
    pub values: Assignment,
    /// The values of the use's serial loops in the counterexample (empty for a cross-thread
    /// violation): where it falls in execution order.
    pub use_at: Vec<(LoopId, i64)>,
}

/// Which pairs a round of safety checks asks about, and how.
pub struct PairChecks<'a> {
    /// The pairs, in the order they are checked.
    pub order: &'a [PairIndex],
    /// Pairs whose violations are already known: not checked again.
    pub excluded: &'a [StoreUse],
    /// The wait loosened for this round, if one is.
    pub loosen: Option<Loosen>,
    /// The round stops after this many violations.
    pub limit: usize,
    /// Asks only about uses at iterations of this loop from this value on (uses outside the
    /// loop, about all of theirs): how a wait fares once its first iterations are peeled.
    pub from: Option<(LoopId, i64)>,
}

/// A cross-thread pair to encode: its queue and position, its accesses, and the variables of
/// the writer thread and of the reader thread.
#[derive(Clone, Copy)]
struct CrossPair<'a> {
    queue: QueueId,
    index: PairIndex,
    accesses: StoreUse,
    slack: &'a Slack,
    writer: &'a LoopValues,
    reader: &'a LoopValues,
}

/// The wait that governed a use in a counterexample, and how many groups it forced complete.
#[derive(Clone, Copy)]
struct Governing {
    wait: EventId,
    forced: i64,
}

impl<'m> Checker<'m> {
    /// Async stores of queue `q` and the events that use the same memory after them, less the
    /// pairs at different constant elements of one buffer (their addresses differ whatever
    /// the solver is asked: see [`constant_offset`]), each store's uses in
    /// event order. The accesses are indexed by storage, buffer and constant element once, so
    /// a store meets only the uses it may pair with (straight-line code has thousands of
    /// stores and uses, each of one element).
    pub fn pairs(&self, q: QueueId) -> Vec<StoreUse> {
        let m = self.model;
        let mut by_storage: HashMap<VarId, StorageUses> = HashMap::new();
        let mut stores = Vec::new();
        for (e, event) in m.events_by_id() {
            let (EventKind::Use { access, .. } | EventKind::AsyncStore { access, .. }) = &event.kind else { continue };
            let offset = constant_offset(access);
            let uses = by_storage.entry(storage(&access.buffer)).or_default();
            uses.all.push(e);
            if let Some(at) = offset {
                uses.by_buffer.entry(access.buffer.id()).or_default().entry(at).or_default().push(e);
            }
            if m.store_queue(e) == Some(q) {
                stores.push((e, access, offset));
            }
        }
        let launches: HashMap<EventId, Option<LoopId>> =
            by_storage.values().flat_map(|u| u.all.iter()).map(|&e| (e, m.launch_of(m.event(e)))).collect();
        // Per buffer with stores, the uses of its storage that are not at one of its constant
        // elements: each such use pairs with every store through the buffer.
        let mut general: HashMap<BufferId, Vec<EventId>> = HashMap::new();
        let mut pairs = Vec::new();
        for (s, access, offset) in stores {
            let Some(uses) = by_storage.get(&storage(&access.buffer)) else { continue };
            let buffer = access.buffer.id();
            let candidates: Vec<EventId> = match offset.and_then(|at| Some((at, uses.by_buffer.get(&buffer)?))) {
                Some((at, elements)) => {
                    let general = general.entry(buffer).or_insert_with(|| {
                        let constant: HashSet<EventId> = elements.values().flatten().copied().collect();
                        uses.all.iter().copied().filter(|u| !constant.contains(u)).collect()
                    });
                    let mut both: Vec<EventId> = general.clone();
                    both.extend(elements.get(&at).into_iter().flatten().copied());
                    both.sort_unstable();
                    both
                }
                None => uses.all.clone(),
            };
            let launch = launches[&s];
            for u in candidates {
                // A launch drains its groups by its end (the drained obligation): a later
                // launch sees them complete.
                if launch.is_some() && launches[&u] != launch {
                    continue;
                }
                pairs.push(StoreUse { store: s, use_: u });
            }
        }
        pairs
    }

    /// Encodes the safety of queue `q`: every pair, with a slack on every wait. Each store and
    /// each use is encoded once and shared by its pairs (each pair is checked on its own, so
    /// sharing variables between pairs changes nothing).
    pub fn encode_safety(&mut self, q: QueueId) -> Enc<QueueSafety> {
        let mut query = self.query(&format!("{q} safety"));
        let slack = Slack::declare(&mut query, self.model, &self.waits(q))?;
        let mut enc = Encoder::new(self.model, &mut query, Thread::This)?;
        let mut stores: HashMap<EventId, StoreInstance> = HashMap::new();
        let mut uses: HashMap<EventId, UseInstance> = HashMap::new();
        let mut pairs = Vec::new();
        for StoreUse { store, use_ } in self.pairs(q) {
            if !self.model.same_launch(store, use_) {
                // A launch that runs before the host's store cannot see it pending.
                if runs_once_before(&self.model.event(use_).path, &self.model.event(store).path) {
                    continue;
                }
                // Host code's groups are numbered apart from a launch's, whose waits do not
                // complete them.
                return Err(Unsupported("an async store outside every launch, used inside a later launch".into()));
            }
            let stored = match stores.entry(store) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(slot) => slot.insert(self.store_instance(&mut enc, &mut query, q, store)?),
            };
            let used = match uses.entry(use_) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(slot) => slot.insert(self.use_instance(&mut enc, &mut query, q, use_, &slack)?),
            };
            let mut pair = encode_pair(&enc, &mut query, stored, used);
            pair.completion = self.completion(q, &used.inst, &stored.group, &slack);
            pair.use_loops = (self.model.serial_loops_of(self.model.event(use_)).into_iter())
                .filter_map(|l| Some((l, used.inst.vals.get(&l)?.clone())))
                .collect();
            pairs.push(pair);
        }
        // A proof covers every choice made for data apart from what correlates it; a
        // counterexample may rest on one no memory contents make.
        if let Some(why) = enc.inexact.first() {
            for pair in &mut pairs {
                pair.completion = Completion::Inexact(why.clone());
            }
        }
        if !enc.threads.is_empty() {
            self.cross_thread(&mut enc, &mut query, q, &slack, &mut pairs)?;
        }
        self.assume_bounds(&mut enc, &mut query);
        let mut by_wait: HashMap<EventId, Vec<PairIndex>> = HashMap::new();
        for (k, pair) in pairs.iter().enumerate() {
            let waits: BTreeSet<EventId> = pair.waits.iter().copied().collect();
            for w in waits {
                by_wait.entry(w).or_default().push(PairIndex(k));
            }
        }
        Ok(QueueSafety { q, query, slack, pairs, by_wait })
    }

    /// An instance of store `s` ([`InstanceRole::Store`]), its group and the element it writes.
    fn store_instance(&self, enc: &mut Encoder, query: &mut Query, q: QueueId, s: EventId) -> Enc<StoreInstance> {
        let role = InstanceRole::Store(s);
        let (inst, runs) = enc.instance(query, s, role)?;
        let group = self.group(enc, q, &inst)?;
        let address = self.address(enc, query, role, &inst)?;
        Ok(StoreInstance { inst, runs, group, address })
    }

    /// An instance of use `u` ([`InstanceRole::Use`]), the element it touches, and what the
    /// waits before it completed.
    fn use_instance(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        q: QueueId,
        u: EventId,
        slack: &Slack,
    ) -> Enc<UseInstance> {
        let role = InstanceRole::Use(u);
        let (inst, runs) = enc.instance(query, u, role)?;
        let address = self.address(enc, query, role, &inst)?;
        let (done, per_wait) = self.completed(enc, q, &inst, slack, Covers::AlsoLone)?;
        Ok(UseInstance { inst, runs, address, done, per_wait })
    }

    /// Data another thread wrote asynchronously is visible only after that thread's wait
    /// completed it and a barrier then separated the wait from the read: for each pair on
    /// memory threads share (shared or global), a writer thread and a different reader thread, and the barriers before
    /// the read.
    fn cross_thread(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        q: QueueId,
        slack: &Slack,
        pairs: &mut [Pair],
    ) -> Enc<()> {
        let writer = enc.threads.clone();
        let reader = enc.declare_threads(query, Thread::Other)?;
        for (k, pair) in pairs.iter_mut().enumerate() {
            // A barrier orders shared and global memory alike; local memory is one thread's.
            let between_threads = access_of(self.model.event(pair.accesses.store))
                .is_some_and(|a| Sharing::of_scope(a.buffer.scope()) != Sharing::Thread);
            if between_threads {
                let cross = CrossPair {
                    queue: q,
                    index: PairIndex(k),
                    accesses: pair.accesses,
                    slack,
                    writer: &writer,
                    reader: &reader,
                };
                let choices = enc.inexact.len();
                let (violated, waits, mut completion) = self.cross_pair(enc, query, cross)?;
                // A proof covers every choice; a counterexample may rest on one no memory
                // contents make.
                if let Some(why) = enc.inexact.get(choices..).and_then(|new| new.first()) {
                    completion = Completion::Inexact(why.clone());
                }
                pair.cross_thread = Some(query.require(not(&violated)));
                pair.mentioned.extend(waits.iter().copied());
                pair.waits.extend(waits);
                pair.cross_completion = completion;
            }
        }
        enc.threads = writer;
        Ok(())
    }

    /// The cross-thread violation of a pair, and the waits it depends on.
    fn cross_pair(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        pair: CrossPair,
    ) -> Enc<(Bool, Vec<EventId>, Completion)> {
        let CrossPair { queue: q, index: k, accesses: StoreUse { store: s, use_: u }, slack, writer, reader } = pair;
        let (store_role, use_role) = (InstanceRole::CrossStore(k), InstanceRole::CrossUse(k));
        enc.threads = writer.clone();
        let (si, s_runs) = enc.instance(query, s, store_role)?;
        let group = self.group(enc, q, &si)?;
        enc.threads = reader.clone();
        let (ui, u_runs) = enc.instance(query, u, use_role)?;
        let written = self.address(enc, query, store_role, &si)?;
        let same = eq(&written, &self.address(enc, query, use_role, &ui)?);
        // Written before the access: the writer's wait and a barrier must come in between.
        // Otherwise (the access comes first, or both stand at one position: two threads
        // running one statement), a barrier must separate the access from the write, or the
        // writer may run ahead and issue the write first (the threads of one phase run in any
        // order). An asynchronous access of the other thread is in flight after its barrier
        // too: the pair with the roles swapped asks for its wait.
        let mut waits = Vec::new();
        let mut points = Vec::new();
        let mut synced = vec![Bool::from_bool(false)];
        let mut separated = vec![Bool::from_bool(false)];
        for b in self.events_where(|k| matches!(k, EventKind::Barrier)) {
            enc.threads = writer.clone();
            let (exists_w, last_w) = enc.last_before(b, &si)?;
            separated.push(and(&[exists_w, enc.before(&ui, &last_w)]));
            enc.threads = reader.clone();
            let (exists, last) = enc.last_before(b, &ui)?;
            // The same barrier, reached by the writer thread.
            let mut at_writer = last.clone();
            for (l, v) in writer {
                at_writer.vals.insert(*l, v.clone());
            }
            enc.threads = writer.clone();
            let (_, effects) = self.completed(enc, q, &at_writer, slack, Covers::Pairs)?;
            waits.extend(governing(&effects));
            let reached = and(&[exists, enc.before(&si, &at_writer)]);
            synced.push(and(&[reached.clone(), not(&incomplete(&group, &effects))]));
            points.push((reached, at_writer));
        }
        let completion = self.completion_at(q, &points, &group, slack);
        // Threads of one block only: different blocks never meet in shared memory, and on
        // global memory the race obligations catch them whatever waits and barriers run.
        let threads = thread_relation(self.model, (s, writer), (u, reader));
        let written_first = enc.before(&si, &ui);
        let unsynchronized =
            or(&[and(&[written_first.clone(), not(&or(&synced))]), and(&[not(&written_first), not(&or(&separated))])]);
        let violated = and(&[s_runs, u_runs, threads.different_thread, threads.same_block, same, unsynchronized]);
        Ok((violated, waits, completion))
    }

    /// Checks the pairs of `safety` that `checks` asks about, until it has found as many
    /// violations as it asks for (see [`Checker::round`]). When every pair holds, the
    /// assumptions are checked too: contradictory ones make the round unknown.
    pub fn safety(&self, safety: &QueueSafety, checks: &PairChecks) -> Round<Violation> {
        let label = format!("q{}_safety", safety.q.number());
        let open: Vec<PairIndex> =
            checks.order.iter().copied().filter(|&k| !checks.excluded.contains(&safety.pair(k).accesses)).collect();
        // The slacks the asked obligations mention: their pairs' waits, and every wait when a
        // counterexample may be confirmed against earlier instances (which count with slack).
        let facts = || {
            let mut facts = if self.lasts_force_most(safety.q) {
                let waits: BTreeSet<EventId> =
                    open.iter().flat_map(|&k| safety.pair(k).mentioned.iter().copied()).collect();
                safety.slack.facts_for(&waits, checks.loosen)
            } else {
                safety.slack.facts(checks.loosen)
            };
            if let Some((from_loop, from)) = checks.from {
                let uses = open.iter().flat_map(|&k| &safety.pair(k).use_loops);
                let at_or_after = uses.filter(|(l, _)| *l == from_loop).map(|(_, v)| v.ge(Int::from_i64(from)));
                facts.extend(at_or_after);
            }
            facts
        };
        let earliest = |k: usize, which: usize, found: &Counterexample| {
            let pair = safety.pair(PairIndex(k));
            match pair.obligation_kinds().nth(which) {
                Some(PairObligation::SameThread) => lexicographically_before(&pair.use_loops, found),
                _ => None,
            }
        };
        let of = RoundOf {
            query: &safety.query,
            facts: &facts,
            label: &label,
            limit: checks.limit,
            on_vacuous: OnVacuous::Undecided,
            // Iterations asked from fix loop variables the assumptions mention.
            facts_apart: checks.from.is_none(),
            // Tightness asks whether a loosening is safe, not where it fails first.
            earlier: if checks.loosen.is_none() { Some(&earliest) } else { None },
        };
        let asked = open.iter().map(|&k| Asked { index: k.0, obligations: safety.pair(k).obligations().collect() });
        self.round(&of, asked, |k, which, found| {
            let k = PairIndex(k);
            match safety.pair(k).obligation_kinds().nth(which) {
                Some(PairObligation::CrossThread) => self.cross_violation(safety.pair(k).accesses, k, found.values()),
                _ => self.explain(safety, k, found),
            }
        })
    }

    /// The same-thread violation of pair `k` in a counterexample.
    fn explain(&self, safety: &QueueSafety, k: PairIndex, found: &Counterexample) -> Violation {
        let pair = safety.pair(k);
        let StoreUse { store, use_ } = pair.accesses;
        let forced: Vec<(EventId, Option<i64>)> = pair
            .per_wait
            .iter()
            .filter(|e| found.bool(&e.exists) == Some(true))
            .filter(|e| e.only_when.as_ref().is_none_or(|when| found.bool(when) == Some(true)))
            .map(|e| (e.wait, found.int(&e.forced)))
            .collect();
        let governing = forced
            .iter()
            .max_by_key(|(_, f)| f.unwrap_or(i64::MIN))
            .map(|(wait, f)| Governing { wait: *wait, forced: f.unwrap_or(0) });
        let group = found.int(&pair.group).unwrap_or(0);
        let values = found.values();
        let reason = self.describe(safety.q, pair.accesses, group, governing, values);
        let instances = [(InstanceRole::Store(store), store), (InstanceRole::Use(use_), use_)];
        let mut kept =
            shown(self.model, values, Shown { instances: &instances, threads: &[Thread::This], params: true });
        kept.push("group", group);
        if let Some(done) = found.int(&pair.done) {
            kept.push("completed", done);
        }
        let use_at = pair.use_loops.iter().filter_map(|(l, v)| Some((*l, found.int(v)?))).collect();
        Violation { accesses: pair.accesses, wait: governing.map(|g| g.wait), reason, values: kept, use_at }
    }

    /// The cross-thread violation of pair `k` in a counterexample's values.
    fn cross_violation(&self, accesses: StoreUse, k: PairIndex, values: &Assignment) -> Violation {
        let m = self.model;
        let StoreUse { store: s, use_: u } = accesses;
        let (store_role, use_role) = (InstanceRole::CrossStore(k), InstanceRole::CrossUse(k));
        let at = |role: InstanceRole, event: EventId| {
            loop_values(m, values, role, m.event(event)).map_or(String::new(), |v| format!(" at {v}"))
        };
        let reason = format!(
            "the access {} (line {}){} by thread {} and the asynchronous write by thread {} at line {}{} are not separated by that thread's wait and a barrier",
            m.event(u).text,
            m.event(u).span.line,
            at(use_role, u),
            thread_values(m, values, Thread::Other),
            thread_values(m, values, Thread::This),
            m.event(s).span.line,
            at(store_role, s),
        );
        let instances = [(store_role, s), (use_role, u)];
        let threads = [Thread::Other, Thread::This];
        let kept = shown(m, values, Shown { instances: &instances, threads: &threads, params: false });
        Violation { accesses, wait: None, reason, values: kept, use_at: Vec::new() }
    }

    fn describe(
        &self,
        q: QueueId,
        accesses: StoreUse,
        group: i64,
        governing: Option<Governing>,
        values: &Assignment,
    ) -> String {
        let m = self.model;
        let StoreUse { store: s, use_: u } = accesses;
        let (store, use_) = (m.event(s), m.event(u));
        let what = match &use_.kind {
            EventKind::Use { write: false, .. } => "read of",
            EventKind::AsyncStore { .. } => "async store to",
            _ => "write to",
        };
        let need = format!(
            "{at_u}the {what} {} (line {}) needs group {group} of {q} (the async store at line {}{at_s}) to be complete",
            use_.text,
            use_.span.line,
            store.span.line,
            at_u = loop_values(m, values, InstanceRole::Use(u), use_).map_or(String::new(), |v| format!("at {v} ")),
            at_s = loop_values(m, values, InstanceRole::Store(s), store).map_or(String::new(), |v| format!(", {v}")),
        );
        match governing {
            Some(Governing { forced, .. }) if forced <= 0 => {
                format!("{need}, but the waits before it complete no group yet")
            }
            Some(Governing { forced, .. }) => {
                format!("{need}, but the waits before it complete only groups 0..{}", forced - 1)
            }
            None => format!("{need}, but no wait on {q} runs before it"),
        }
    }
}

/// The pair of `stored` and `used`: the store runs before the use, on the same element, and
/// its group is not complete.
fn encode_pair(enc: &Encoder, query: &mut Query, stored: &StoreInstance, used: &UseInstance) -> Pair {
    let pending = incomplete(&stored.group, &used.per_wait);
    let same = eq(&stored.address, &used.address);
    let before = enc.before(&stored.inst, &used.inst);
    let violated = and(&[stored.runs.clone(), used.runs.clone(), before, same, pending]);
    Pair {
        accesses: StoreUse { store: stored.inst.event, use_: used.inst.event },
        same_thread: query.require(not(&violated)),
        cross_thread: None,
        group: stored.group.clone(),
        done: used.done.clone(),
        per_wait: used.per_wait.clone(),
        waits: governing(&used.per_wait).collect(),
        mentioned: mentioned(&used.per_wait).collect(),
        completion: Completion::Exact,
        cross_completion: Completion::Exact,
        use_loops: Vec::new(),
    }
}

impl QueueSafety {
    /// Every pair, in encoding order.
    pub fn all(&self) -> Vec<PairIndex> {
        (0..self.pairs.len()).map(PairIndex).collect()
    }

    fn pair(&self, k: PairIndex) -> &Pair {
        &self.pairs[k.0]
    }

    /// The pairs whose obligations depend on `wait`'s count (the others hold or fail
    /// whatever it is), in the order most likely to show a violation when it is loosened
    /// first: uses that share the longest part of their position with the wait (those inside
    /// the wait's scope, then those in the same loop body, ...). Any order gives the same
    /// verdicts.
    pub fn nearest_first(&self, checker: &Checker, wait: EventId) -> Vec<PairIndex> {
        let model = checker.model;
        let shared =
            |k: PairIndex| common_prefix(&model.event(wait).path, &model.event(self.pair(k).accesses.use_).path);
        let mut order: Vec<PairIndex> = self.by_wait.get(&wait).cloned().unwrap_or_default();
        order.sort_by_key(|&k| Reverse(shared(k)));
        order
    }
}

impl Pair {
    /// Which obligations the pair has, in the order they are checked.
    fn obligation_kinds(&self) -> impl Iterator<Item = PairObligation> {
        std::iter::once(PairObligation::SameThread).chain(self.cross_thread.map(|_| PairObligation::CrossThread))
    }

    /// The obligations of the pair, in the order they are checked, each with how far its
    /// counterexample can be trusted.
    fn obligations(&self) -> impl Iterator<Item = (ObligationId, &Completion)> + '_ {
        std::iter::once((self.same_thread, &self.completion))
            .chain(self.cross_thread.map(|o| (o, &self.cross_completion)))
    }
}

/// The fact that the loop values `loops` (outermost first) are lexicographically below their
/// values in `found`: an instance of the same event that runs earlier. `None` when there is
/// no loop, or `found` does not give every value.
fn lexicographically_before(loops: &[(LoopId, Int)], found: &Counterexample) -> Option<Bool> {
    let mut alternatives = Vec::new();
    let mut same_so_far = Vec::new();
    for (_, term) in loops {
        let value = Int::from_i64(found.int(term)?);
        let mut earlier = same_so_far.clone();
        earlier.push(term.lt(&value));
        alternatives.push(and(&earlier));
        same_so_far.push(term.eq(&value));
    }
    (!alternatives.is_empty()).then(|| or(&alternatives))
}

/// Whether every instance of the event at `a` runs before every instance of the one at `b`:
/// their paths part at two children of one statement, `a`'s first, under no loop.
fn runs_once_before(a: &[Step], b: &[Step]) -> bool {
    let shared = common_prefix(a, b);
    !a[..shared].iter().any(|s| matches!(s, Step::Loop(_)))
        && matches!((a.get(shared), b.get(shared)), (Some(Step::Child(x)), Some(Step::Child(y))) if x < y)
}
