//! The queries: safety of every use of asynchronously written memory, tightness of every
//! wait, executed counts that are never negative, and groups all complete at the end.
//!
//! For a use `u` of an address that an async store instance `s` wrote earlier, the group of `s`
//! must be complete: `group(s) < completed(u)`, where `completed(u)` is the most any earlier
//! wait forced, `max over wait statements W of committed(last W before u) - count(that W)`.
//! This takes the last instance of each wait statement, which is exact when a wait's
//! `committed - count` does not decrease from one of its instances to the next (true of
//! pipelined loops; a program where it decreases may get a refutation the interpreter cannot
//! reproduce). One query per queue asks for any violating pair; its model names the pair and
//! the wait that governed the use.

use std::time::Duration;

use tirproof_ir::Expr;
use z3::ast::{Bool, Int};

use super::encode::{max, Enc, Encoder, Instance, Unsupported};
use super::model::{storage, Access, Event, EventId, EventKind, Model};
use crate::solver::{Query, Verdict};

/// A change to one wait's count, to ask whether a larger count would still be safe.
#[derive(Clone, Copy, Debug)]
pub struct Loosen {
    pub wait: EventId,
    pub by: i64,
}

pub struct Checker<'m> {
    pub model: &'m Model,
    /// Loops whose conditions were counted by enumeration: proofs assume they have at most
    /// `ENUMERATED_ITERATIONS` iterations.
    pub bounded: std::cell::RefCell<std::collections::BTreeSet<usize>>,
    pub timeout: Duration,
    pub name: String,
    /// Every query, as SMT-LIB, when dumps are asked for.
    pub dumps: Option<Vec<(String, String)>>,
    pub queries: usize,
}

/// A violation found in a model.
pub struct Violation {
    pub store: EventId,
    pub use_: EventId,
    /// The wait that governed the use, if any wait ran before it.
    pub wait: Option<EventId>,
    pub reason: String,
    pub values: Vec<(String, i64)>,
}

impl Violation {
    /// A group left in flight at the end of the function.
    pub fn at_end() -> Violation {
        Violation {
            store: 0,
            use_: 0,
            wait: None,
            reason: "a group is still in flight at the end".into(),
            values: Vec::new(),
        }
    }
}

pub enum Safety {
    Safe,
    Violated(Violation),
    Unknown(String),
}

impl<'m> Checker<'m> {
    /// Adds the assumptions of the bounded encodings to the query, and remembers the loops.
    fn assume_bounds(&self, enc: &mut Encoder, query: &mut Query) {
        for (l, fits) in enc.bounded.drain(..) {
            query.assume(fits);
            self.bounded.borrow_mut().insert(l);
        }
    }

    fn run(&mut self, query: &Query, label: &str) -> Verdict {
        self.queries += 1;
        if let Some(d) = &mut self.dumps {
            d.push((format!("{}_{label}", self.name), query.to_smtlib()));
        }
        query.check()
    }

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

    pub fn waits(&self, q: i64) -> Vec<EventId> {
        self.events_where(|k| matches!(k, EventKind::Wait { queue, .. } if *queue == q))
    }

    fn commits(&self, q: i64) -> Vec<EventId> {
        self.events_where(|k| matches!(k, EventKind::Commit { queue } if *queue == q))
    }

    fn events_where(&self, pred: impl Fn(&EventKind) -> bool) -> Vec<EventId> {
        self.model.events.iter().enumerate().filter(|(_, e)| pred(&e.kind)).map(|(i, _)| i).collect()
    }

    /// Groups of `q` committed before instance `at`.
    fn committed(&self, enc: &mut Encoder, q: i64, at: &Instance) -> Enc<Int> {
        let mut terms = vec![Int::from_i64(0)];
        for k in self.commits(q) {
            terms.push(enc.count_before(k, at)?);
        }
        Ok(Int::add(&terms))
    }

    /// The in-flight count of a wait at one of its instances (with a loosening applied).
    fn count_of(&self, enc: &mut Encoder, wait: EventId, at: &Instance, loosen: Option<Loosen>) -> Enc<Int> {
        let EventKind::Wait { count, .. } = &self.model.events[wait].kind else {
            return Err(Unsupported("not a wait".into()));
        };
        let n = enc.int(&count.clone(), at, None)?;
        Ok(match loosen {
            Some(l) if l.wait == wait => Int::add(&[n, Int::from_i64(l.by)]),
            _ => n,
        })
    }

    /// `completed(u)` and, per wait statement, whether its last instance exists and what it
    /// forced (`committed - count`).
    fn completed(
        &self,
        enc: &mut Encoder,
        q: i64,
        at: &Instance,
        loosen: Option<Loosen>,
    ) -> Enc<(Int, Vec<WaitEffect>)> {
        let mut done = Int::from_i64(0);
        let mut per_wait = Vec::new();
        for w in self.waits(q) {
            let (exists, last) = enc.last_before(w, at)?;
            let forced = Int::sub(&[self.committed(enc, q, &last)?, self.count_of(enc, w, &last, loosen)?]);
            done = exists.ite(&max(&done, &forced), &done);
            per_wait.push((w, exists, forced));
        }
        Ok((done, per_wait))
    }

    /// The group an async store instance belongs to.
    fn group(&self, enc: &mut Encoder, q: i64, store: &Instance) -> Enc<Int> {
        let EventKind::AsyncStore { commit: Some(k), .. } = &self.model.events[store.event].kind else {
            return Err(Unsupported("an async store outside a commit scope".into()));
        };
        let commit_loops = self.model.loops_of(&self.model.events[*k]);
        let vals = store.vals.iter().filter(|(l, _)| commit_loops.contains(l)).map(|(l, v)| (*l, v.clone())).collect();
        self.committed(enc, q, &Instance { event: *k, vals })
    }

    /// One query: can any use of queue `q`'s asynchronously written memory see a pending write?
    pub fn safety(&mut self, q: i64, loosen: Option<Loosen>, exclude: &[(EventId, EventId)]) -> Safety {
        let pairs: Vec<_> = self.pairs(q).into_iter().filter(|p| !exclude.contains(p)).collect();
        if pairs.is_empty() {
            return Safety::Safe;
        }
        let mut query = Query::new(format!("{} queue {q} safety", self.name)).with_timeout(self.timeout);
        let encoded = self.encode_safety(&mut query, q, &pairs, loosen);
        let indicators = match encoded {
            Ok(i) => i,
            Err(Unsupported(why)) => return Safety::Unknown(format!("not encoded exactly: {why}")),
        };
        match self.run(&query, &format!("q{q}_safety")) {
            Verdict::Proved => Safety::Safe,
            Verdict::Vacuous => Safety::Unknown("the assumptions contradict each other".into()),
            Verdict::Unknown(why) => Safety::Unknown(why),
            Verdict::Refuted(values) => self.explain(q, &pairs, &indicators, values),
        }
    }

    fn encode_safety(
        &self,
        query: &mut Query,
        q: i64,
        pairs: &[(EventId, EventId)],
        loosen: Option<Loosen>,
    ) -> Enc<Vec<PairNames>> {
        let mut enc = Encoder::new(self.model, query, "thread_")?;
        let mut violations = Vec::new();
        let mut names = Vec::new();
        // One instance of each use, shared by its pairs: `completed(u)` is the large part.
        let mut uses: std::collections::HashMap<EventId, UseInstance> = std::collections::HashMap::new();
        for (k, &(s, u)) in pairs.iter().enumerate() {
            if let std::collections::hash_map::Entry::Vacant(slot) = uses.entry(u) {
                let prefix = format!("u{k}");
                let (ui, runs) = enc.instance(query, u, &prefix)?;
                let (done, per_wait) = self.completed(&mut enc, q, &ui, loosen)?;
                slot.insert(UseInstance { prefix, inst: ui, runs, done, per_wait });
            }
            let shared = &uses[&u];
            let (ui, u_runs, done, per_wait) =
                (shared.inst.clone(), shared.runs.clone(), shared.done.clone(), shared.per_wait.clone());
            let use_prefix = shared.prefix.clone();
            let (si, s_runs) = enc.instance(query, s, &format!("s{k}"))?;
            let same = self.same_address(&mut enc, query, k, &si, &ui)?;
            let group = self.group(&mut enc, q, &si)?;
            let mut pn = PairNames::declare(query, k, &per_wait)?;
            pn.use_prefix = use_prefix;
            query.assume(pn.group.eq(&group));
            query.assume(pn.done.eq(&done));
            for ((_, exists, forced), (e, f)) in per_wait.iter().zip(&pn.waits) {
                query.assume(e.eq(exists.ite(&Int::from_i64(1), &Int::from_i64(0))));
                query.assume(f.eq(forced));
            }
            let violated = Bool::and(&[s_runs, u_runs, enc.before(&si, &ui), same, group.ge(&done)]);
            query.assume(pn.hit.eq(violated.ite(&Int::from_i64(1), &Int::from_i64(0))));
            violations.push(violated);
            names.push(pn);
        }
        self.cross_thread(&mut enc, query, q, pairs, loosen, &mut violations)?;
        query.require(Bool::or(&violations).not());
        self.assume_bounds(&mut enc, query);
        Ok(names)
    }

    /// Data another thread wrote asynchronously is visible only after that thread's wait
    /// completed it and a barrier then separated the wait from the read: for each pair on
    /// shared memory, a writer thread and a different reader thread, and the barriers before
    /// the read.
    fn cross_thread(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        q: i64,
        pairs: &[(EventId, EventId)],
        loosen: Option<Loosen>,
        violations: &mut Vec<Bool>,
    ) -> Enc<()> {
        if enc.threads.is_empty() {
            return Ok(());
        }
        let writer = enc.threads.clone();
        let reader = enc.declare_threads(query, "reader_")?;
        let barriers = self.events_where(|k| matches!(k, EventKind::Barrier));
        for (k, &(s, u)) in pairs.iter().enumerate() {
            let shared = access_of(&self.model.events[s]).is_some_and(|a| a.buffer.scope().starts_with("shared"));
            if !shared {
                continue;
            }
            enc.threads = writer.clone();
            let (si, s_runs) = enc.instance(query, s, &format!("xs{k}"))?;
            let group = self.group(enc, q, &si)?;
            enc.threads = reader.clone();
            let (ui, u_runs) = enc.instance(query, u, &format!("xu{k}"))?;
            let same = self.same_address(enc, query, k + 10_000, &si, &ui)?;
            // Written before the read: the writer's wait and a barrier must come in between.
            // Read before the write: a barrier must separate them, or the writer may run ahead
            // and issue the write first (the threads of one phase run in any order).
            let mut synced = vec![Bool::from_bool(false)];
            let mut separated = vec![Bool::from_bool(false)];
            for &b in &barriers {
                enc.threads = writer.clone();
                let (exists_w, last_w) = enc.last_before(b, &si)?;
                separated.push(Bool::and(&[exists_w, enc.before(&ui, &last_w)]));
                enc.threads = reader.clone();
                let (exists, last) = enc.last_before(b, &ui)?;
                // The same barrier, reached by the writer thread.
                let mut at_writer = last.clone();
                for (l, v) in &writer {
                    at_writer.vals.insert(*l, v.clone());
                }
                enc.threads = writer.clone();
                let (done, _) = self.completed(enc, q, &at_writer, loosen)?;
                synced.push(Bool::and(&[exists, enc.before(&si, &at_writer), done.gt(&group)]));
            }
            let distinct: Vec<Bool> = writer.iter().map(|(l, v)| v.eq(&reader[l]).not()).collect();
            let unsynchronized = Bool::or(&[
                Bool::and(&[enc.before(&si, &ui), Bool::or(&synced).not()]),
                Bool::and(&[enc.before(&ui, &si), Bool::or(&separated).not()]),
            ]);
            let violated = Bool::and(&[s_runs, u_runs, Bool::or(&distinct), same, unsynchronized]);
            let hit = query.int(&format!("xhit_{k}")).map_err(|e| Unsupported(e.to_string()))?;
            query.assume(hit.eq(violated.ite(&Int::from_i64(1), &Int::from_i64(0))));
            violations.push(violated);
        }
        enc.threads = writer;
        Ok(())
    }

    /// The two accesses touch one scalar element of the storage.
    fn same_address(&self, enc: &mut Encoder, query: &mut Query, k: usize, s: &Instance, u: &Instance) -> Enc<Bool> {
        let a = self.address(enc, query, &format!("lane_s{k}"), s)?;
        let b = self.address(enc, query, &format!("lane_u{k}"), u)?;
        Ok(a.eq(&b))
    }

    /// The scalar element an access touches (a vector access: one of its lanes, chosen freely).
    fn address(&self, enc: &mut Encoder, query: &mut Query, lane_name: &str, inst: &Instance) -> Enc<Int> {
        let access = access_of(&self.model.events[inst.event]).ok_or_else(|| Unsupported("not an access".into()))?;
        let node = access.buffer.node();
        let shape: Vec<Expr> = node.shape.clone();
        let strides: Vec<Expr> = if node.strides.is_empty() { row_major(&shape) } else { node.strides.clone() };
        let mut flat = vec![enc.int(&node.elem_offset.clone(), inst, Some(query))?];
        let mut lane_terms = Vec::new();
        for (d, index) in access.indices.iter().enumerate() {
            let stride = enc.int(&strides.get(d).cloned().unwrap_or_else(|| Expr::int(1)), inst, Some(query))?;
            let (base, step, lanes) = match index {
                Expr::Ramp { base, stride, lanes } => ((**base).clone(), Some((**stride).clone()), *lanes),
                other => (other.clone(), None, 1),
            };
            flat.push(Int::mul(&[enc.int(&base, inst, Some(query))?, stride.clone()]));
            if let Some(step) = step {
                let lane = query.int(&format!("{lane_name}_{d}")).map_err(|e| Unsupported(e.to_string()))?;
                query.assume(Bool::and(&[lane.ge(Int::from_i64(0)), lane.lt(Int::from_i64(i64::from(lanes)))]));
                lane_terms.push(Int::mul(&[lane, enc.int(&step, inst, Some(query))?, stride]));
            }
        }
        let elem_lanes = i64::from(node.dtype.lanes);
        let mut scalar = Int::mul(&[Int::add(&flat), Int::from_i64(elem_lanes)]);
        if elem_lanes > 1 {
            let lane = query.int(&format!("{lane_name}_elem")).map_err(|e| Unsupported(e.to_string()))?;
            query.assume(Bool::and(&[lane.ge(Int::from_i64(0)), lane.lt(Int::from_i64(elem_lanes))]));
            scalar = Int::add(&[scalar, lane]);
        }
        lane_terms
            .iter()
            .for_each(|t| scalar = Int::add(&[scalar.clone(), Int::mul(&[t.clone(), Int::from_i64(elem_lanes)])]));
        Ok(scalar)
    }

    fn explain(&self, q: i64, pairs: &[(EventId, EventId)], names: &[PairNames], values: Vec<(String, i64)>) -> Safety {
        let value = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
        let Some(k) = (0..pairs.len()).find(|k| value(&format!("hit_{k}")) == Some(1)) else {
            if let Some(k) = (0..pairs.len()).find(|k| value(&format!("xhit_{k}")) == Some(1)) {
                return Safety::Violated(self.cross_violation(pairs[k], k, values));
            }
            return Safety::Unknown("Z3 reported a violation but the model names no pair".into());
        };
        let (s, u) = pairs[k];
        let pn = &names[k];
        let governing = pn
            .waits_ids
            .iter()
            .enumerate()
            .filter(|(i, _)| value(&format!("exists_{k}_{i}")) == Some(1))
            .max_by_key(|(i, _)| value(&format!("forced_{k}_{i}")).unwrap_or(i64::MIN))
            .map(|(i, w)| (*w, value(&format!("forced_{k}_{i}")).unwrap_or(0)));
        let group = value(&format!("group_{k}")).unwrap_or(0);
        let reason = self.describe(q, (s, u), (k, &pn.use_prefix), (group, governing), &values);
        let params: Vec<&str> = self.model.params.iter().map(|p| p.name()).collect();
        let keep = |n: &str| {
            n.starts_with(&format!("s{k}_"))
                || n.starts_with(&format!("{}_", pn.use_prefix))
                || n.starts_with("thread_")
                || n == format!("group_{k}")
                || n == format!("completed_{k}")
                || params.contains(&n)
        };
        let shown = values.into_iter().filter(|(n, _)| keep(n)).collect();
        Safety::Violated(Violation { store: s, use_: u, wait: governing.map(|(w, _)| w), reason, values: shown })
    }

    fn cross_violation(&self, (s, u): (EventId, EventId), k: usize, values: Vec<(String, i64)>) -> Violation {
        let m = self.model;
        let at = |prefix: &str| loop_values(m, &values, prefix).map_or(String::new(), |v| format!(" at {v}"));
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
            .into_iter()
            .filter(|(n, _)| {
                n.starts_with(&format!("xs{k}_"))
                    || n.starts_with(&format!("xu{k}_"))
                    || n.starts_with("reader_")
                    || n.starts_with("thread_")
            })
            .collect();
        Violation { store: s, use_: u, wait: None, reason, values: keep }
    }

    fn describe(
        &self,
        q: i64,
        (s, u): (EventId, EventId),
        (k, use_prefix): (usize, &str),
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
            at_s = at(&format!("s{k}")).map_or(String::new(), |v| format!(", {v}")),
        );
        match governing {
            Some((_, forced)) if forced <= 0 => format!("{need}, but the waits before it complete no group yet"),
            Some((_, forced)) => format!("{need}, but the waits before it complete only groups 0..{}", forced - 1),
            None => format!("{need}, but no wait on queue {q} runs before it"),
        }
    }

    /// Data flow, with the pass's provenance: two accesses to one element, at least one a
    /// write, both in statements the pass copied, keep the order the original program gave
    /// them (original iteration, then original statement). Then every read sees the write the
    /// original program's read saw.
    pub fn data_flow(&mut self) -> Option<WaitFailure> {
        let m = self.model;
        let accesses: Vec<EventId> = m
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.origins.is_empty() && access_of(e).is_some())
            .map(|(i, _)| i)
            .collect();
        let mut pairs = Vec::new();
        for &a in &accesses {
            for &b in &accesses {
                let (ea, eb) = (&m.events[a], &m.events[b]);
                let writes = is_write(ea) || is_write(eb);
                let same_storage =
                    access_of(ea).zip(access_of(eb)).is_some_and(|(x, y)| storage(&x.buffer) == storage(&y.buffer));
                if writes && same_storage {
                    pairs.push((a, b));
                }
            }
        }
        if pairs.is_empty() {
            return None;
        }
        let mut query = Query::new(format!("{} data flow", self.name)).with_timeout(self.timeout);
        let built: Enc<()> = (|| {
            let mut enc = Encoder::new(m, &mut query, "thread_")?;
            let mut violations = vec![Bool::from_bool(false)];
            for (k, &(a, b)) in pairs.iter().enumerate() {
                let (ai, a_runs) = enc.instance(&mut query, a, &format!("a{k}"))?;
                let (bi, b_runs) = enc.instance(&mut query, b, &format!("b{k}"))?;
                let same = self.same_address(&mut enc, &mut query, k + 20_000, &ai, &bi)?;
                let original = self.original_before(&mut enc, &mut query, &ai, &bi)?;
                let violated = Bool::and(&[a_runs, b_runs, same, original, enc.before(&bi, &ai)]);
                let hit = query.int(&format!("flow_{k}")).map_err(|e| Unsupported(e.to_string()))?;
                query.assume(hit.eq(violated.ite(&Int::from_i64(1), &Int::from_i64(0))));
                violations.push(violated);
            }
            query.require(Bool::or(&violations).not());
            self.assume_bounds(&mut enc, &mut query);
            Ok(())
        })();
        if let Err(Unsupported(why)) = built {
            return Some(WaitFailure::Unknown(format!("data flow not encoded exactly: {why}")));
        }
        match self.run(&query, "data_flow") {
            Verdict::Proved | Verdict::Vacuous => None,
            Verdict::Unknown(why) => Some(WaitFailure::Unknown(format!("data flow: {why}"))),
            Verdict::Refuted(values) => {
                let hit = (0..pairs.len()).find(|k| values.iter().any(|(n, v)| *n == format!("flow_{k}") && *v == 1));
                let Some(k) = hit else {
                    return Some(WaitFailure::Unknown("data flow: the model names no pair".into()));
                };
                let (a, b) = pairs[k];
                let at = |p: &str| loop_values(m, &values, p).map_or(String::new(), |v| format!(" at {v}"));
                let msg = format!(
                    "data flow: {} (line {}){} comes before {} (line {}){} in the original program, but after it here; both touch the same element",
                    m.events[a].text,
                    m.events[a].span.line,
                    at(&format!("a{k}")),
                    m.events[b].text,
                    m.events[b].span.line,
                    at(&format!("b{k}")),
                );
                let keep = values
                    .into_iter()
                    .filter(|(n, _)| n.starts_with(&format!("a{k}_")) || n.starts_with(&format!("b{k}_")))
                    .collect();
                Some(WaitFailure::Refuted(msg, keep))
            }
        }
    }

    /// Instance `a` comes before instance `b` in the original program: compare their origins
    /// (original iteration, then original statement), outermost copy first. Accesses of one
    /// original statement instance keep their order and are never reported.
    fn original_before(&self, enc: &mut Encoder, query: &mut Query, a: &Instance, b: &Instance) -> Enc<Bool> {
        let (oa, ob) = (&self.model.events[a.event].origins, &self.model.events[b.event].origins);
        let depth = oa.len().min(ob.len());
        let mut levels = Vec::with_capacity(depth);
        for d in 0..depth {
            let ia = enc.int(&oa[d].1.clone(), a, Some(query))?;
            let ib = enc.int(&ob[d].1.clone(), b, Some(query))?;
            levels.push((ia, ib, oa[d].0, ob[d].0));
        }
        let mut before = Bool::from_bool(false);
        for (ia, ib, ka, kb) in levels.into_iter().rev() {
            let same_iteration = ia.eq(&ib);
            let by_statement = if ka == kb { before.clone() } else { Bool::from_bool(ka < kb) };
            before = Bool::or(&[ia.lt(&ib), Bool::and(&[same_iteration, by_statement])]);
        }
        Ok(before)
    }

    /// Is some executed instance of `wait` negative?
    pub fn negative(&mut self, wait: EventId) -> Option<WaitFailure> {
        let mut query = Query::new(format!("{} negative count", self.name)).with_timeout(self.timeout);
        let built: Enc<()> = (|| {
            let mut enc = Encoder::new(self.model, &mut query, "thread_")?;
            let (w, runs) = enc.instance(&mut query, wait, "w")?;
            let n = self.count_of(&mut enc, wait, &w, None)?;
            query.require(Bool::and(&[runs, n.lt(Int::from_i64(0))]).not());
            self.assume_bounds(&mut enc, &mut query);
            Ok(())
        })();
        if let Err(Unsupported(why)) = built {
            return Some(WaitFailure::Unknown(format!("not encoded exactly: {why}")));
        }
        match self.run(&query, &format!("w{wait}_negative")) {
            Verdict::Proved => None,
            Verdict::Refuted(values) => {
                let at = loop_values(self.model, &values, "w").map_or(String::new(), |v| format!(" at {v}"));
                Some(WaitFailure::Refuted(format!("the in-flight count is negative{at}"), values))
            }
            Verdict::Vacuous => None,
            Verdict::Unknown(why) => Some(WaitFailure::Unknown(why)),
        }
    }

    /// Are all of queue `q`'s groups complete when the function ends?
    pub fn drained(&mut self, q: i64, loosen: Option<Loosen>) -> Option<WaitFailure> {
        let end = self.events_where(|k| matches!(k, EventKind::End)).first().copied()?;
        let mut query = Query::new(format!("{} queue {q} drained", self.name)).with_timeout(self.timeout);
        let built: Enc<()> = (|| {
            let mut enc = Encoder::new(self.model, &mut query, "thread_")?;
            let (e, _) = enc.instance(&mut query, end, "end")?;
            let total = self.committed(&mut enc, q, &e)?;
            let (done, _) = self.completed(&mut enc, q, &e, loosen)?;
            let t = query.int("committed").map_err(|e| Unsupported(e.to_string()))?;
            let d = query.int("completed").map_err(|e| Unsupported(e.to_string()))?;
            query.assume(t.eq(&total));
            query.assume(d.eq(&done));
            query.require(done.ge(&total));
            self.assume_bounds(&mut enc, &mut query);
            Ok(())
        })();
        if let Err(Unsupported(why)) = built {
            return Some(WaitFailure::Unknown(format!("not encoded exactly: {why}")));
        }
        match self.run(&query, &format!("q{q}_drained")) {
            Verdict::Proved | Verdict::Vacuous => None,
            Verdict::Refuted(values) => {
                let get = |n: &str| values.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v);
                let msg = format!(
                    "{} groups of queue {q} are committed but only {} are complete when the function ends",
                    get("committed"),
                    get("completed").max(0)
                );
                Some(WaitFailure::Refuted(msg, values))
            }
            Verdict::Unknown(why) => Some(WaitFailure::Unknown(why)),
        }
    }
}

/// A wait statement's last instance before a point: the wait, whether it exists, and how
/// many groups it forced complete.
type WaitEffect = (EventId, Bool, Int);

pub enum WaitFailure {
    Refuted(String, Vec<(String, i64)>),
    Unknown(String),
}

/// A use's instance and what the waits before it completed, shared by its pairs.
struct UseInstance {
    prefix: String,
    inst: Instance,
    runs: Bool,
    done: Int,
    per_wait: Vec<WaitEffect>,
}

/// Names declared for one pair, so the model says which pair failed and why.
pub struct PairNames {
    /// The variable-name prefix of the pair's use instance.
    use_prefix: String,
    hit: Int,
    group: Int,
    done: Int,
    waits: Vec<(Int, Int)>,
    waits_ids: Vec<EventId>,
}

impl PairNames {
    fn declare(query: &mut Query, k: usize, per_wait: &[WaitEffect]) -> Enc<PairNames> {
        let int = |q: &mut Query, n: String| q.int(&n).map_err(|e| Unsupported(e.to_string()));
        let hit = int(query, format!("hit_{k}"))?;
        let group = int(query, format!("group_{k}"))?;
        let done = int(query, format!("completed_{k}"))?;
        let mut waits = Vec::new();
        for i in 0..per_wait.len() {
            waits.push((int(query, format!("exists_{k}_{i}"))?, int(query, format!("forced_{k}_{i}"))?));
        }
        Ok(PairNames {
            use_prefix: format!("u{k}"),
            hit,
            group,
            done,
            waits,
            waits_ids: per_wait.iter().map(|(w, _, _)| *w).collect(),
        })
    }
}

fn is_write(event: &Event) -> bool {
    matches!(event.kind, EventKind::Use { write: true, .. } | EventKind::AsyncStore { .. })
}

fn access_of(event: &Event) -> Option<&Access> {
    match &event.kind {
        EventKind::Use { access, .. } | EventKind::AsyncStore { access, .. } => Some(access),
        _ => None,
    }
}

fn row_major(shape: &[Expr]) -> Vec<Expr> {
    let mut strides = vec![Expr::int(1); shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].clone() * shape[d + 1].clone();
    }
    strides
}

/// `i = 1, j = 0` for the loop variables of an instance in a model.
fn loop_values(model: &Model, values: &[(String, i64)], prefix: &str) -> Option<String> {
    let mut parts = Vec::new();
    for (name, v) in values {
        let Some(rest) = name.strip_prefix(&format!("{prefix}_")) else { continue };
        let Some((var, id)) = rest.rsplit_once('_') else { continue };
        if id.parse::<usize>().is_ok_and(|l| l < model.loops.len()) {
            parts.push(format!("{var} = {v}"));
        }
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}
