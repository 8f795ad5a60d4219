//! Waits on tokens: the count a token wait runs with, and the obligations that its tokens
//! name real groups of its queue and that a count claimed to cover them does.
//!
//! A token names group `n` of queue `q` of its thread (docs/async-semantics.md, "Tokens").
//! Where it is made, its group is counted like every other count of the verifier:
//! `async_group_token(q)` at an instance `p` names group `committed(q, p) - 1`,
//! `async_copy_token(q)` names `committed(q, p)`. A token flows to a wait
//!
//! * through a `let`: the instance of its point shares the loops of the wait's instance (the
//!   `let` encloses the wait);
//! * through memory: a load at instance `p` of element `e` reads the value the last store to
//!   `e` before `p` wrote, found with `Encoder::last_before_where` for each store of a token
//!   into that buffer and each element it may write (the buffer's elements are few), the
//!   latest of them in program order winning. The stored token's own source is followed in
//!   turn (a token copied from one buffer to another), to [`MAX_HOPS`] stores.
//!
//! A wait on tokens alone then leaves `committed(q, w) - (max n + 1)` groups in flight: that
//! is its count in every obligation ([`Checker::count_of`]), so safety, the drained end and
//! tightness read a token wait exactly as the interpreter runs it.
//!
//! Invariant: every value a term here stands for is the value the interpreter computes, or
//! the construct is [`Unsupported`] (the wait's verdicts are then unknown): a buffer of tokens
//! that anything else may write (an `int64` store of another value, an asynchronous store,
//! another thread's store to shared memory) is not followed.

use z3::ast::{Bool, Int};

use tirproof_ir::async_op::TokenOp;
use tirproof_ir::{BinOp, Expr};

use super::checker::{Checker, Completion};
use super::encode::{ite_bool, Enc, Encoder, Instance, LoopValues, Unsupported};
use super::fold::{add, and, ge, ite, lt, max, not, sub};
use super::model::{storage, Access, EventId, EventKind, QueueId, TokenSource, Until};
use super::names::{loop_values, shown, InstanceRole, Shown, Thread};
use super::obligation::{Encoded, Obligation, OnVacuous, Refutation};
use super::ranges::Ranges;
use super::report::Subject;
use crate::solver::{Counterexample, Query};

/// How many stores a token is followed through (a token copied from buffer to buffer).
const MAX_HOPS: usize = 4;

/// Elements of a buffer of tokens the encoding follows a load through, at most.
const MAX_TOKEN_ELEMENTS: i64 = 64;

/// A token at one instance of the point that evaluates it.
#[derive(Clone)]
pub struct TokenTerm {
    /// Whether it is a token of the wait's queue.
    pub same_queue: Bool,
    /// Whether it holds a token at all (a load of an element no token was stored to does not).
    pub defined: Bool,
    /// The group it names.
    pub group: Int,
}

/// The terms of a token wait at one of its instances.
pub struct TokenWaitTerms {
    pub tokens: Vec<TokenTerm>,
    /// Groups of the queue committed before the wait.
    pub committed: Int,
    /// What the wait leaves in flight: `committed - (max group + 1)`.
    pub keep: Int,
}

impl Checker<'_> {
    /// The terms of token wait `wait` at instance `at`.
    pub fn token_wait(&self, enc: &mut Encoder, wait: EventId, at: &Instance) -> Enc<TokenWaitTerms> {
        let EventKind::Wait { queue, until } = &self.model.event(wait).kind else {
            return Err(Unsupported("not a wait".into()));
        };
        let mut tokens = Vec::new();
        for source in until.tokens() {
            tokens.push(self.token_at(enc, *queue, source, &at.vals, 0)?);
        }
        let committed = self.committed(enc, *queue, at)?;
        let newest = tokens.iter().map(|t| t.group.clone()).reduce(|a, b| max(&a, &b));
        let newest = newest.ok_or_else(|| Unsupported("a wait on no token".into()))?;
        let keep = sub(&committed, &add(&[newest, Int::from_i64(1)]));
        Ok(TokenWaitTerms { tokens, committed, keep })
    }

    /// The token `source` evaluates to at the instance of its point within `outer` (the loop
    /// values of the instance that uses it, whose loops enclose the point's).
    fn token_at(
        &self,
        enc: &mut Encoder,
        wait_queue: QueueId,
        source: &TokenSource,
        outer: &LoopValues,
        hops: usize,
    ) -> Enc<TokenTerm> {
        if let TokenSource::Offset { base, by } = source {
            let token = self.token_at(enc, wait_queue, base, outer, hops)?;
            return Ok(TokenTerm { group: add(&[token.group, Int::from_i64(*by)]), ..token });
        }
        let point = self.instance_within(source.point(), outer)?;
        match source {
            TokenSource::Made { op, queue, .. } => {
                let committed = self.committed(enc, *queue, &point)?;
                let group = match op {
                    TokenOp::LastCommitted => sub(&committed, &Int::from_i64(1)),
                    TokenOp::NextCommit => committed,
                };
                Ok(TokenTerm {
                    same_queue: Bool::from_bool(*queue == wait_queue),
                    defined: Bool::from_bool(true),
                    group,
                })
            }
            TokenSource::Loaded { access, .. } => self.loaded_token(enc, wait_queue, access, &point, hops),
            TokenSource::Offset { .. } => Err(Unsupported("a token offset, followed above".into())),
        }
    }

    /// The token a load of `access` at `point` reads: the one the last store to its element
    /// wrote (see the module docs).
    fn loaded_token(
        &self,
        enc: &mut Encoder,
        wait_queue: QueueId,
        access: &Access,
        point: &Instance,
        hops: usize,
    ) -> Enc<TokenTerm> {
        if hops >= MAX_HOPS {
            return Err(Unsupported(format!("a token copied through more than {MAX_HOPS} stores")));
        }
        let m = self.model;
        let (flat, elements) = flat_index(access)?;
        let element = enc.int(&flat, &point.vals, None)?;
        // Only the elements the index can take (its value range) are asked: each costs a last
        // instance of every store there.
        let mut ranges = Ranges::new(m);
        let slots = possible_slots(&mut ranges, &flat, elements);
        let where_ = storage(&access.buffer);
        // Only storage the function allocates starts without tokens; each iteration of the
        // loops around its allocation starts it afresh, so the store read must be in the
        // same iteration of those loops as the load.
        let fresh_in = m.allocated.get(&where_).ok_or_else(|| {
            Unsupported(format!("tokens in `{}`, which the function does not allocate", access.buffer.name()))
        })?;
        if m.handles_used.contains(&where_) {
            return Err(Unsupported(format!(
                "tokens in `{}`, whose handle the function uses as a value (a call may write it)",
                access.buffer.name()
            )));
        }
        let threads_share = !access.buffer.scope().starts_with("local") && m.thread_loops().next().is_some();
        if threads_share {
            return Err(Unsupported(format!("tokens in `{}`, which other threads may write", access.buffer.name())));
        }
        // Every store to the buffer must be a token store: anything else may overwrite one.
        for (id, e) in m.events_by_id() {
            let writes = match &e.kind {
                EventKind::Use { access: a, write: true } | EventKind::AsyncStore { access: a, .. } => {
                    storage(&a.buffer) == where_
                }
                _ => false,
            };
            if writes && !m.token_stores.iter().any(|s| s.store == id && s.value.is_ok()) {
                return Err(Unsupported(format!(
                    "`{}` holds tokens, and line {} stores something else there",
                    access.buffer.name(),
                    e.span.line
                )));
            }
        }
        // For each store of a token there, its last instance before the point that wrote the
        // element read, and the token it wrote.
        let mut candidates: Vec<(Bool, Instance, TokenTerm)> = Vec::new();
        for store in m.token_stores.iter().filter(
            |s| matches!(&m.event(s.store).kind, EventKind::Use { access: a, .. } if storage(&a.buffer) == where_),
        ) {
            let Ok(value) = &store.value else { continue };
            let EventKind::Use { access: written, .. } = &m.event(store.store).kind else { continue };
            let (written_at, written_elements) = flat_index(written)?;
            if written_elements != elements {
                return Err(Unsupported(format!("`{}` viewed with two shapes", access.buffer.name())));
            }
            let written_slots = possible_slots(&mut ranges, &written_at, elements);
            for &slot in slots.iter().filter(|s| written_slots.contains(s)) {
                let here = Expr::eq(written_at.clone(), Expr::int_of(slot, written_at.dtype()));
                let (exists, inst) = enc.last_before_where(store.store, &here, point)?;
                let mut same_allocation = vec![exists, element_is(&element, slot, &slots)];
                for l in fresh_in {
                    if let (Some(a), Some(b)) = (inst.vals.get(l), point.vals.get(l)) {
                        same_allocation.push(super::fold::eq(a, b));
                    }
                }
                let exists = and(&same_allocation);
                let token = self.token_at(enc, wait_queue, value, &inst.vals, hops + 1)?;
                candidates.push((exists, inst, token));
            }
        }
        // The latest candidate that exists wins; with none, the element holds no token.
        let mut result =
            TokenTerm { same_queue: Bool::from_bool(false), defined: Bool::from_bool(false), group: Int::from_i64(-1) };
        for (k, (exists, inst, token)) in candidates.iter().enumerate() {
            let mut wins = vec![exists.clone()];
            for (j, (other, later, _)) in candidates.iter().enumerate() {
                if j != k {
                    wins.push(not(&and(&[other.clone(), enc.before(inst, later)])));
                }
            }
            let wins = and(&wins);
            result = TokenTerm {
                same_queue: ite_bool(&wins, &token.same_queue, &result.same_queue),
                defined: ite_bool(&wins, &token.defined, &result.defined),
                group: ite(&wins, &token.group, &result.group),
            };
        }
        Ok(result)
    }

    /// The instance of `event` that runs within `outer`: the same values of the loops it is
    /// in, all of which must be among `outer`'s.
    fn instance_within(&self, event: EventId, outer: &LoopValues) -> Enc<Instance> {
        let mut vals = LoopValues::new();
        for l in self.model.loops_of(self.model.event(event)) {
            let v = outer
                .get(&l)
                .ok_or_else(|| Unsupported(format!("a token made in a loop ({l}) that its use is not in")))?;
            vals.insert(l, v.clone());
        }
        Ok(Instance { event, vals })
    }

    /// Whether `wait` names tokens.
    pub fn is_token_wait(&self, wait: EventId) -> bool {
        matches!(&self.model.event(wait).kind, EventKind::Wait { until: Until::Tokens { .. }, .. })
    }
}

/// The elements `0..elements` that index `flat` can take, by its value range.
fn possible_slots(ranges: &mut Ranges, flat: &Expr, elements: i64) -> Vec<i64> {
    if let Some(c) = flat.as_int() {
        return vec![c];
    }
    let (lo, hi) = match ranges.value(flat) {
        Some(r) => (r.lo.max(0), r.hi.min(i128::from(elements) - 1)),
        None => (0, i128::from(elements) - 1),
    };
    (lo..=hi).filter_map(|s| i64::try_from(s).ok()).collect()
}

/// Whether element `element` is `slot`, where `slots` are all it can be (one: always).
fn element_is(element: &Int, slot: i64, slots: &[i64]) -> Bool {
    if slots.len() == 1 {
        return Bool::from_bool(true);
    }
    super::fold::eq(element, &Int::from_i64(slot))
}

/// The element of `access` as one index into its buffer's storage (row-major), and how many
/// elements the buffer has; unsupported for a buffer of symbolic or many elements.
fn flat_index(access: &Access) -> Enc<(Expr, i64)> {
    let shape = access.buffer.shape();
    let mut elements = 1i64;
    let mut flat: Option<Expr> = None;
    for (extent, index) in shape.iter().zip(&access.indices) {
        let n = extent
            .as_int()
            .filter(|n| *n > 0)
            .ok_or_else(|| Unsupported(format!("tokens in `{}`, whose shape is not constant", access.buffer.name())))?;
        elements = elements.saturating_mul(n);
        flat = Some(match flat {
            None => index.clone(),
            Some(f) => {
                Expr::binary(BinOp::Add, Expr::binary(BinOp::Mul, f, Expr::int_of(n, index.dtype())), index.clone())
            }
        });
    }
    if shape.len() != access.indices.len() || elements > MAX_TOKEN_ELEMENTS {
        return Err(Unsupported(format!(
            "tokens in `{}`, which has more than {MAX_TOKEN_ELEMENTS} elements or is indexed as another shape",
            access.buffer.name()
        )));
    }
    let flat = flat.ok_or_else(|| Unsupported(format!("tokens in `{}`, which has no index", access.buffer.name())))?;
    Ok((flat, elements))
}

/// "Every token a wait names is a committed group of its queue, and a count it runs with
/// completes them": at each instance, per token, that it holds a token, of the wait's queue,
/// of a group committed before the wait; and that the claimed count (if any) is at most what
/// the tokens leave in flight.
pub struct TokenClaims {
    pub wait: EventId,
}

/// What each obligation of a [`TokenClaims`] item asks, in encoding order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokenCheck {
    Defined(usize),
    SameQueue(usize),
    Named(usize),
    Committed(usize),
    Claim,
}

impl TokenClaims {
    fn checks(&self, checker: &Checker) -> Vec<TokenCheck> {
        let EventKind::Wait { until, .. } = &checker.model.event(self.wait).kind else { return Vec::new() };
        let mut checks = Vec::new();
        for k in 0..until.tokens().len() {
            checks.extend([
                TokenCheck::Defined(k),
                TokenCheck::SameQueue(k),
                TokenCheck::Named(k),
                TokenCheck::Committed(k),
            ]);
        }
        if until.runs().is_some() {
            checks.push(TokenCheck::Claim);
        }
        checks
    }
}

impl Obligation for TokenClaims {
    type Item = EventId;

    fn name(&self) -> String {
        "tokens".into()
    }

    fn label(&self) -> String {
        format!("w{}_tokens", self.wait.index())
    }

    fn subject(&self) -> Option<Subject> {
        None
    }

    /// Contradictory assumptions: no instance of the wait runs.
    fn on_vacuous(&self) -> OnVacuous {
        OnVacuous::Holds
    }

    fn items(&self, checker: &Checker) -> Vec<EventId> {
        if checker.is_token_wait(self.wait) {
            vec![self.wait]
        } else {
            Vec::new()
        }
    }

    fn encode(&self, checker: &mut Checker, query: &mut Query, _waits: &[EventId]) -> Enc<Encoded> {
        let wait = self.wait;
        let mut enc = Encoder::new(checker.model, query, Thread::This)?;
        let (w, runs) = enc.instance(query, wait, InstanceRole::Wait)?;
        let terms = checker.token_wait(&mut enc, wait, &w)?;
        let claimed = checker.written_count(&mut enc, wait, &w)?;
        let mut obligations = Vec::new();
        for check in self.checks(checker) {
            let holds = match check {
                TokenCheck::Defined(k) => terms.tokens[k].defined.clone(),
                TokenCheck::SameQueue(k) => terms.tokens[k].same_queue.clone(),
                TokenCheck::Named(k) => ge(&terms.tokens[k].group, &Int::from_i64(0)),
                TokenCheck::Committed(k) => lt(&terms.tokens[k].group, &terms.committed),
                TokenCheck::Claim => match &claimed {
                    Some(count) => ge(&terms.keep, count),
                    None => Bool::from_bool(true),
                },
            };
            obligations.push((query.require(not(&and(&[runs.clone(), not(&holds)]))), Completion::Exact));
        }
        checker.assume_bounds(&mut enc, query);
        Ok(vec![obligations])
    }

    fn refuted(
        &self,
        checker: &Checker,
        _waits: &[EventId],
        _k: usize,
        which: usize,
        found: &Counterexample,
    ) -> Refutation {
        let found = found.values();
        let event = checker.model.event(self.wait);
        let at =
            loop_values(checker.model, found, InstanceRole::Wait, event).map_or(String::new(), |v| format!(" at {v}"));
        let checks = self.checks(checker);
        let EventKind::Wait { until, .. } = &event.kind else {
            return Refutation { reason: "not a wait".into(), values: Default::default() };
        };
        let named = |k: usize| {
            let point = checker.model.event(until.tokens()[k].point());
            format!("the token `{}` (line {})", point.text, point.span.line)
        };
        let reason = match checks.get(which) {
            Some(TokenCheck::Defined(k)) => {
                format!("{} may hold no token{at}: nothing stored one there before", named(*k))
            }
            Some(TokenCheck::SameQueue(k)) => {
                format!("{} names a group of another queue than the wait's{at}", named(*k))
            }
            Some(TokenCheck::Named(k)) => format!("{} names no group (a group number below 0){at}", named(*k)),
            Some(TokenCheck::Committed(k)) => {
                format!("{} names a group its thread has not committed yet{at}: no count completes it", named(*k))
            }
            Some(TokenCheck::Claim) | None => {
                format!("the count leaves a group its tokens name in flight{at}: it claims more than the tokens allow")
            }
        };
        let instances = [(InstanceRole::Wait, self.wait)];
        let values =
            shown(checker.model, found, Shown { instances: &instances, threads: &[Thread::This], params: true });
        Refutation { reason, values }
    }
}

/// "No instance of a token-making call `async_group_token(q)` runs before its thread's first
/// commit to `q`": the interpreter faults there, wherever the token is used.
pub struct TokenBeforeCommit;

impl Obligation for TokenBeforeCommit {
    type Item = (EventId, QueueId);

    fn name(&self) -> String {
        "tokens made".into()
    }

    fn label(&self) -> String {
        "token_made".into()
    }

    fn subject(&self) -> Option<Subject> {
        None
    }

    fn on_vacuous(&self) -> OnVacuous {
        OnVacuous::Holds
    }

    fn items(&self, checker: &Checker) -> Vec<(EventId, QueueId)> {
        checker
            .model
            .tokens_made
            .iter()
            .filter(|(_, op, _)| *op == TokenOp::LastCommitted)
            .map(|(p, _, q)| (*p, *q))
            .collect()
    }

    fn encode(&self, checker: &mut Checker, query: &mut Query, items: &[(EventId, QueueId)]) -> Enc<Encoded> {
        let mut enc = Encoder::new(checker.model, query, Thread::This)?;
        let mut out = Vec::new();
        for (k, (point, q)) in items.iter().enumerate() {
            let (p, runs) = enc.instance(query, *point, InstanceRole::Token(k))?;
            let committed = checker.committed(&mut enc, *q, &p)?;
            let none = lt(&committed, &Int::from_i64(1));
            out.push(vec![(query.require(not(&and(&[runs, none]))), Completion::Exact)]);
        }
        checker.assume_bounds(&mut enc, query);
        Ok(out)
    }

    fn refuted(
        &self,
        checker: &Checker,
        items: &[(EventId, QueueId)],
        k: usize,
        _which: usize,
        found: &Counterexample,
    ) -> Refutation {
        let found = found.values();
        let (point, q) = items[k];
        let event = checker.model.event(point);
        let at = loop_values(checker.model, found, InstanceRole::Token(k), event)
            .map_or(String::new(), |v| format!(" at {v}"));
        let reason = format!(
            "line {}: `{}` runs before any commit to {q}{at}: there is no group to name",
            event.span.line, event.text
        );
        let instances = [(InstanceRole::Token(k), point)];
        let values =
            shown(checker.model, found, Shown { instances: &instances, threads: &[Thread::This], params: true });
        Refutation { reason, values }
    }
}
