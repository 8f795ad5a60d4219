//! Safety of one queue: can any use of the memory its async stores write see a pending write?
//!
//! The queue is encoded once ([`QueueSafety`]): one obligation per (store, use) pair on the
//! same storage — the use never sees the store's group pending — and one per pair on shared
//! memory with threads — another thread sees the write only after the writer's wait and a
//! barrier. Every wait of the queue has a slack, so the same encoding answers the tightness
//! questions (is it still safe with one wait loosened by k?).
//!
//! A round of checks ([`Checker::safety`]) checks the pairs one at a time, in a given order,
//! and explains each violation from its counterexample: which instances, which group, and the
//! wait that governed the use. The pairs hold together exactly when each holds, so the
//! verdicts are those of one query of all the pairs.

use std::collections::hash_map::{Entry, HashMap};

use z3::ast::{Bool, Int};

use super::checker::{access_of, governing, incomplete, loop_values, Checker, Loosen, Slack, WaitEffect};
use super::encode::{Enc, Encoder, Instance};
use super::fold::{and, eq, not, or};
use super::model::{storage, EventId, EventKind, Step};
use crate::solver::{Counterexample, Outcome, Query, Scope, Verdict};

/// The encoded safety of one queue.
pub struct QueueSafety {
    q: i64,
    query: Query,
    slack: Slack,
    pairs: Vec<Pair>,
}

/// One (store, use) pair: its obligations and the terms that explain a violation.
struct Pair {
    store: EventId,
    use_: EventId,
    same_thread: usize,
    cross_thread: Option<usize>,
    /// The variable-name prefixes of the store and use instances.
    store_prefix: String,
    use_prefix: String,
    group: Int,
    done: Int,
    per_wait: Vec<WaitEffect>,
    /// The waits whose count the pair's obligations depend on.
    waits: Vec<EventId>,
}

/// A store instance, its group and the element it writes, shared by the pairs of the store.
struct StoreInstance {
    prefix: String,
    inst: Instance,
    runs: Bool,
    group: Int,
    address: Int,
}

/// A use instance, the element it touches and what the waits before it completed, shared by
/// the pairs of the use.
struct UseInstance {
    prefix: String,
    inst: Instance,
    runs: Bool,
    address: Int,
    done: Int,
    per_wait: Vec<WaitEffect>,
}

/// A violation found in a counterexample.
pub struct Violation {
    pub store: EventId,
    pub use_: EventId,
    /// The wait that governed the use, if any wait ran before it.
    pub wait: Option<EventId>,
    pub reason: String,
    pub values: Vec<(String, i64)>,
}

/// What a round of safety checks found: violations (at most the limit asked for), and why a
/// pair could not be decided, if one could not.
pub struct Round {
    pub violations: Vec<Violation>,
    pub unknown: Option<String>,
}

impl<'m> Checker<'m> {
    /// Async stores of queue `q` and the events that use the same memory after them.
    pub fn pairs(&self, q: i64) -> Vec<(EventId, EventId)> {
        let m = self.model;
        let mut pairs = Vec::new();
        for (s, store) in m.events.iter().enumerate() {
            let EventKind::AsyncStore { access, commit: Some(k) } = &store.kind else { continue };
            if !matches!(m.events[*k].kind, EventKind::Commit { queue } if queue == q) {
                continue;
            }
            for (u, other) in m.events.iter().enumerate() {
                let used = match &other.kind {
                    EventKind::Use { access: a, .. } | EventKind::AsyncStore { access: a, .. } => a,
                    _ => continue,
                };
                if storage(&used.buffer) == storage(&access.buffer) {
                    pairs.push((s, u));
                }
            }
        }
        pairs
    }

    /// Encodes the safety of queue `q`: every pair, with a slack on every wait. Each store and
    /// each use is encoded once and shared by its pairs (each pair is checked on its own, so
    /// sharing variables between pairs changes nothing).
    pub fn encode_safety(&mut self, q: i64) -> Enc<QueueSafety> {
        let mut query = self.query(&format!("queue {q} safety"));
        let slack = Slack::declare(&mut query, &self.waits(q))?;
        let mut enc = Encoder::new(self.model, &mut query, "thread_")?;
        let mut stores: HashMap<EventId, StoreInstance> = HashMap::new();
        let mut uses: HashMap<EventId, UseInstance> = HashMap::new();
        let mut pairs = Vec::new();
        for (s, u) in self.pairs(q) {
            let stored = match stores.entry(s) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(slot) => slot.insert(self.store_instance(&mut enc, &mut query, q, s)?),
            };
            let used = match uses.entry(u) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(slot) => slot.insert(self.use_instance(&mut enc, &mut query, q, u, &slack)?),
            };
            pairs.push(encode_pair(&enc, &mut query, stored, used));
        }
        if !enc.threads.is_empty() {
            self.cross_thread(&mut enc, &mut query, q, &slack, &mut pairs)?;
        }
        self.assume_bounds(&mut enc, &mut query);
        Ok(QueueSafety { q, query, slack, pairs })
    }

    /// An instance of store `s` (variables `s{s}_...`), its group and the element it writes.
    fn store_instance(&self, enc: &mut Encoder, query: &mut Query, q: i64, s: EventId) -> Enc<StoreInstance> {
        let prefix = format!("s{s}");
        let (inst, runs) = enc.instance(query, s, &prefix)?;
        let group = self.group(enc, q, &inst)?;
        let address = self.address(enc, query, &format!("lane_{prefix}"), &inst)?;
        Ok(StoreInstance { prefix, inst, runs, group, address })
    }

    /// An instance of use `u` (variables `u{u}_...`), the element it touches, and what the
    /// waits before it completed.
    fn use_instance(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        q: i64,
        u: EventId,
        slack: &Slack,
    ) -> Enc<UseInstance> {
        let prefix = format!("u{u}");
        let (inst, runs) = enc.instance(query, u, &prefix)?;
        let address = self.address(enc, query, &format!("lane_{prefix}"), &inst)?;
        let (done, per_wait) = self.completed(enc, q, &inst, slack)?;
        Ok(UseInstance { prefix, inst, runs, address, done, per_wait })
    }

    /// Data another thread wrote asynchronously is visible only after that thread's wait
    /// completed it and a barrier then separated the wait from the read: for each pair on
    /// shared memory, a writer thread and a different reader thread, and the barriers before
    /// the read.
    fn cross_thread(&self, enc: &mut Encoder, query: &mut Query, q: i64, slack: &Slack, pairs: &mut [Pair]) -> Enc<()> {
        let writer = enc.threads.clone();
        let reader = enc.declare_threads(query, "reader_")?;
        for (k, pair) in pairs.iter_mut().enumerate() {
            let shared =
                access_of(&self.model.events[pair.store]).is_some_and(|a| a.buffer.scope().starts_with("shared"));
            if shared {
                let (violated, waits) =
                    self.cross_pair(enc, query, (q, k), (pair.store, pair.use_), slack, (&writer, &reader))?;
                pair.cross_thread = Some(query.require(not(&violated)));
                pair.waits.extend(waits);
            }
        }
        enc.threads = writer;
        Ok(())
    }

    /// The cross-thread violation of pair `k`, and the waits it depends on.
    fn cross_pair(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        (q, k): (i64, usize),
        (s, u): (EventId, EventId),
        slack: &Slack,
        (writer, reader): (&Threads, &Threads),
    ) -> Enc<(Bool, Vec<EventId>)> {
        enc.threads = writer.clone();
        let (si, s_runs) = enc.instance(query, s, &format!("xs{k}"))?;
        let group = self.group(enc, q, &si)?;
        enc.threads = reader.clone();
        let (ui, u_runs) = enc.instance(query, u, &format!("xu{k}"))?;
        let same = self.same_address(enc, query, k + 10_000, &si, &ui)?;
        // Written before the read: the writer's wait and a barrier must come in between.
        // Read before the write: a barrier must separate them, or the writer may run ahead
        // and issue the write first (the threads of one phase run in any order).
        let mut waits = Vec::new();
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
            let (_, effects) = self.completed(enc, q, &at_writer, slack)?;
            waits.extend(governing(&effects));
            synced.push(and(&[exists, enc.before(&si, &at_writer), not(&incomplete(&group, &effects))]));
        }
        let distinct: Vec<Bool> = writer.iter().map(|(l, v)| not(&eq(v, &reader[l]))).collect();
        let unsynchronized =
            or(&[and(&[enc.before(&si, &ui), not(&or(&synced))]), and(&[enc.before(&ui, &si), not(&or(&separated))])]);
        Ok((and(&[s_runs, u_runs, or(&distinct), same, unsynchronized]), waits))
    }

    /// Checks the pairs of `safety` in `order` (indices into its pairs), skipping `excluded`,
    /// with `loosen` applied, until `limit` violations are found. When every pair holds, the
    /// assumptions are checked too: contradictory ones make the round unknown.
    pub fn safety(
        &self,
        safety: &QueueSafety,
        loosen: Option<Loosen>,
        excluded: &[(EventId, EventId)],
        (order, limit): (&[usize], usize),
    ) -> Round {
        let mut round = Round { violations: Vec::new(), unknown: None };
        let open: Vec<usize> = order.iter().copied().filter(|&k| !excluded.contains(&safety.pairs[k].key())).collect();
        if open.is_empty() {
            return round;
        }
        let scope = self.session.open(&safety.query, &safety.slack.facts(loosen));
        for k in open {
            match self.check_pair(&scope, safety, k) {
                None => {}
                Some(Ok(violation)) => round.violations.push(violation),
                Some(Err(why)) => round.unknown = round.unknown.or(Some(why)),
            }
            if round.violations.len() >= limit {
                return round;
            }
        }
        if round.violations.is_empty() && round.unknown.is_none() {
            round.unknown = match scope.assumptions() {
                Verdict::Proved => None,
                Verdict::Unknown(why) => Some(why),
                Verdict::Vacuous | Verdict::Refuted(_) => Some("the assumptions contradict each other".into()),
            };
        }
        round
    }

    /// The first obligation of pair `k` that fails, explained, or why one could not be
    /// decided; `None` when all hold.
    fn check_pair(&self, scope: &Scope, safety: &QueueSafety, k: usize) -> Option<Result<Violation, String>> {
        let pair = &safety.pairs[k];
        let label = format!("q{}_safety", safety.q);
        for (index, cross) in pair.obligations() {
            match self.log.check(scope, index, &label) {
                Outcome::Holds => {}
                Outcome::Unknown(why) => return Some(Err(why)),
                Outcome::Fails(found) => return Some(Ok(self.explain(safety.q, (k, pair), cross, &found))),
            }
        }
        None
    }

    /// The violation of pair `k` in a counterexample.
    fn explain(&self, q: i64, (k, pair): (usize, &Pair), cross: bool, found: &Counterexample) -> Violation {
        if cross {
            return self.cross_violation((pair.store, pair.use_), k, found.values());
        }
        let forced: Vec<(EventId, Option<i64>)> = pair
            .per_wait
            .iter()
            .filter(|(_, exists, _)| found.bool(exists) == Some(true))
            .map(|(w, _, forced)| (*w, found.int(forced)))
            .collect();
        let governing = forced.iter().max_by_key(|(_, f)| f.unwrap_or(i64::MIN)).map(|(w, f)| (*w, f.unwrap_or(0)));
        let group = found.int(&pair.group).unwrap_or(0);
        let values = found.values();
        let prefixes = (pair.store_prefix.as_str(), pair.use_prefix.as_str());
        let reason = self.describe(q, (pair.store, pair.use_), prefixes, (group, governing), values);
        let params: Vec<&str> = self.model.params.iter().map(|p| p.name()).collect();
        let keep = |n: &str| {
            n.starts_with(&format!("{}_", pair.store_prefix))
                || n.starts_with(&format!("{}_", pair.use_prefix))
                || n.starts_with("thread_")
                || params.contains(&n)
        };
        let mut shown: Vec<(String, i64)> = values.iter().filter(|(n, _)| keep(n)).cloned().collect();
        shown.push((format!("group_{k}"), group));
        shown.extend(found.int(&pair.done).map(|d| (format!("completed_{k}"), d)));
        Violation { store: pair.store, use_: pair.use_, wait: governing.map(|(w, _)| w), reason, values: shown }
    }

    fn cross_violation(&self, (s, u): (EventId, EventId), k: usize, values: &[(String, i64)]) -> Violation {
        let m = self.model;
        let at = |prefix: &str| loop_values(m, values, prefix).map_or(String::new(), |v| format!(" at {v}"));
        let threads = |prefix: &str| {
            values
                .iter()
                .filter(|(n, _)| n.starts_with(prefix))
                .map(|(n, v)| format!("{} = {v}", n.trim_start_matches(prefix)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let reason = format!(
            "the access {} (line {}){} by thread {} and the asynchronous write by thread {} at line {}{} are not separated by that thread's wait and a barrier",
            m.events[u].text,
            m.events[u].span.line,
            at(&format!("xu{k}")),
            threads("reader_"),
            threads("thread_"),
            m.events[s].span.line,
            at(&format!("xs{k}")),
        );
        let keep: Vec<(String, i64)> = values
            .iter()
            .filter(|(n, _)| {
                n.starts_with(&format!("xs{k}_"))
                    || n.starts_with(&format!("xu{k}_"))
                    || n.starts_with("reader_")
                    || n.starts_with("thread_")
            })
            .cloned()
            .collect();
        Violation { store: s, use_: u, wait: None, reason, values: keep }
    }

    fn describe(
        &self,
        q: i64,
        (s, u): (EventId, EventId),
        (store_prefix, use_prefix): (&str, &str),
        (group, governing): (i64, Option<(EventId, i64)>),
        values: &[(String, i64)],
    ) -> String {
        let m = self.model;
        let (store, use_) = (&m.events[s], &m.events[u]);
        let at = |prefix: &str| loop_values(m, values, prefix);
        let what = match &use_.kind {
            EventKind::Use { write: false, .. } => "read of",
            EventKind::AsyncStore { .. } => "async store to",
            _ => "write to",
        };
        let need = format!(
            "{at_u}the {what} {} (line {}) needs group {group} of queue {q} (the async store at line {}{at_s}) to be complete",
            use_.text,
            use_.span.line,
            store.span.line,
            at_u = at(use_prefix).map_or(String::new(), |v| format!("at {v} ")),
            at_s = at(store_prefix).map_or(String::new(), |v| format!(", {v}")),
        );
        match governing {
            Some((_, forced)) if forced <= 0 => format!("{need}, but the waits before it complete no group yet"),
            Some((_, forced)) => format!("{need}, but the waits before it complete only groups 0..{}", forced - 1),
            None => format!("{need}, but no wait on queue {q} runs before it"),
        }
    }
}

/// The variables of one thread (per thread or block loop).
type Threads = std::collections::BTreeMap<usize, Int>;

/// The pair of `stored` and `used`: the store runs before the use, on the same element, and
/// its group is not complete.
fn encode_pair(enc: &Encoder, query: &mut Query, stored: &StoreInstance, used: &UseInstance) -> Pair {
    let pending = incomplete(&stored.group, &used.per_wait);
    let same = eq(&stored.address, &used.address);
    let before = enc.before(&stored.inst, &used.inst);
    let violated = and(&[stored.runs.clone(), used.runs.clone(), before, same, pending]);
    Pair {
        store: stored.inst.event,
        use_: used.inst.event,
        same_thread: query.require(not(&violated)),
        cross_thread: None,
        store_prefix: stored.prefix.clone(),
        use_prefix: used.prefix.clone(),
        group: stored.group.clone(),
        done: used.done.clone(),
        per_wait: used.per_wait.clone(),
        waits: governing(&used.per_wait).collect(),
    }
}

impl QueueSafety {
    /// Every pair, in encoding order.
    pub fn all(&self) -> Vec<usize> {
        (0..self.pairs.len()).collect()
    }

    /// The pairs whose obligations depend on `wait`'s count (the others hold or fail
    /// whatever it is), in the order most likely to show a violation when it is loosened
    /// first: uses that share the longest part of their position with the wait (those inside
    /// the wait's scope, then those in the same loop body, ...). Any order gives the same
    /// verdicts.
    pub fn nearest_first(&self, checker: &Checker, wait: EventId) -> Vec<usize> {
        let events = &checker.model.events;
        let shared = |k: usize| common_prefix(&events[wait].path, &events[self.pairs[k].use_].path);
        let mut order: Vec<usize> = self.all().into_iter().filter(|&k| self.pairs[k].waits.contains(&wait)).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(shared(k)));
        order
    }
}

impl Pair {
    fn key(&self) -> (EventId, EventId) {
        (self.store, self.use_)
    }

    /// The obligations of the pair, each with whether it is the cross-thread one.
    fn obligations(&self) -> impl Iterator<Item = (usize, bool)> + '_ {
        std::iter::once((self.same_thread, false)).chain(self.cross_thread.map(|i| (i, true)))
    }
}

fn common_prefix(a: &[Step], b: &[Step]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
