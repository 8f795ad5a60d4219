//! Data flow, with the pass's provenance: two accesses to one element, at least one a write,
//! both in statements the pass copied, keep the order the original program gave them
//! (original iteration, then original statement). Then every read sees the write the
//! original program's read saw.
//!
//! One query with an obligation per pair of accesses, checked one pair at a time; the first
//! reordered pair is reported.

use std::collections::HashMap;

use z3::ast::{Bool, Int};

use super::checker::{access_of, is_write, Checker};
use super::encode::{Enc, Encoder, Instance};
use super::fold::{and, eq, lt, not, or};
use super::model::{storage, vars_of, EventId, LoopId, Step};
use super::names::{loop_values, shown, InstanceRole, Shown, Thread};
use super::obligation::{one_exact_each, Encoded, Obligation, OnVacuous, Refutation};
use super::report::Subject;
use crate::solver::{Counterexample, ObligationId, Query};

/// The data-flow obligations of a function: one per pair of accesses with provenance to one
/// storage, at least one a write (the first reordered pair is reported).
pub struct DataFlow;

impl Obligation for DataFlow {
    type Item = (EventId, EventId);

    fn name(&self) -> String {
        "data flow".into()
    }

    fn label(&self) -> String {
        "data_flow".into()
    }

    fn subject(&self) -> Option<Subject> {
        Some(Subject::DataFlow)
    }

    fn on_vacuous(&self) -> OnVacuous {
        OnVacuous::Undecided
    }

    fn items(&self, checker: &Checker) -> Vec<(EventId, EventId)> {
        flow_pairs(checker)
    }

    fn encode(&self, checker: &mut Checker, query: &mut Query, pairs: &[(EventId, EventId)]) -> Enc<Encoded> {
        Ok(one_exact_each(encode_flow(checker, query, pairs)?))
    }

    fn refuted(
        &self,
        checker: &Checker,
        pairs: &[(EventId, EventId)],
        k: usize,
        _which: usize,
        found: &Counterexample,
    ) -> Refutation {
        reordered(checker, pairs[k].0, pairs[k].1, found)
    }
}

/// Pairs of accesses with provenance to the same storage, at least one a write.
fn flow_pairs(checker: &Checker) -> Vec<(EventId, EventId)> {
    let m = checker.model;
    let accesses: Vec<EventId> =
        m.events_by_id().filter(|(_, e)| !e.origins.is_empty() && access_of(e).is_some()).map(|(id, _)| id).collect();
    let mut pairs = Vec::new();
    for &a in &accesses {
        for &b in &accesses {
            let (ea, eb) = (m.event(a), m.event(b));
            let writes = is_write(ea) || is_write(eb);
            let same_storage =
                access_of(ea).zip(access_of(eb)).is_some_and(|(x, y)| storage(&x.buffer) == storage(&y.buffer));
            if writes && same_storage {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// One obligation per pair: it is not reordered (`a` comes first originally, `b` now).
fn encode_flow(checker: &mut Checker, query: &mut Query, pairs: &[(EventId, EventId)]) -> Enc<Vec<ObligationId>> {
    let mut enc = Encoder::new(checker.model, query, Thread::This)?;
    let mut slots = HashMap::new();
    let mut obligations = Vec::with_capacity(pairs.len());
    for &(a, b) in pairs {
        let first = slot(checker, &mut enc, query, &mut slots, a, InstanceRole::Earlier(a))?;
        let second = slot(checker, &mut enc, query, &mut slots, b, InstanceRole::Later(b))?;
        let original = original_before(checker, &mut enc, query, &first.inst, &second.inst)?;
        let same = eq(&first.address, &second.address);
        let reordered = and(&[first.runs, second.runs, same, original, enc.before(&second.inst, &first.inst)]);
        obligations.push(query.require(not(&reordered)));
    }
    checker.assume_bounds(&mut enc, query);
    Ok(obligations)
}

/// The instance of `event` in the role `instance` (first or second of a pair), encoded
/// once and shared by every pair that has the event in that role (each pair is checked on
/// its own, so sharing variables between pairs changes nothing).
fn slot(
    checker: &Checker,
    enc: &mut Encoder,
    query: &mut Query,
    slots: &mut HashMap<InstanceRole, Slot>,
    event: EventId,
    instance: InstanceRole,
) -> Enc<Slot> {
    if let Some(known) = slots.get(&instance) {
        return Ok(known.clone());
    }
    let (inst, runs) = enc.instance(query, event, instance)?;
    let address = checker.address(enc, query, instance, &inst)?;
    let slot = Slot { inst, runs, address };
    slots.insert(instance, slot.clone());
    Ok(slot)
}

/// The refutation of pair (`a`, `b`): `a` comes first in the original program, second here.
fn reordered(checker: &Checker, a: EventId, b: EventId, found: &Counterexample) -> Refutation {
    let m = checker.model;
    let values = found.values();
    let (first, second) = (InstanceRole::Earlier(a), InstanceRole::Later(b));
    let at = |role: InstanceRole, event: EventId| {
        loop_values(m, values, role, m.event(event)).map_or(String::new(), |v| format!(" at {v}"))
    };
    let reason = format!(
        "data flow: {} (line {}){} comes before {} (line {}){} in the original program, but after it here; both touch the same element",
        m.event(a).text,
        m.event(a).span.line,
        at(first, a),
        m.event(b).text,
        m.event(b).span.line,
        at(second, b),
    );
    let instances = [(first, a), (second, b)];
    let values = shown(m, values, Shown { instances: &instances, ..Shown::default() });
    Refutation { reason, values }
}

/// Instance `a` comes before instance `b` in the original program: first the loops around
/// both that the pass left alone (see [`untouched_loops`]), then their origins
/// (original iteration, then original statement), outermost copy first. Accesses of one
/// original statement instance keep their order and are never reported.
fn original_before(checker: &Checker, enc: &mut Encoder, query: &mut Query, a: &Instance, b: &Instance) -> Enc<Bool> {
    let (oa, ob) = (&checker.model.event(a.event).origins, &checker.model.event(b.event).origins);
    let depth = oa.len().min(ob.len());
    let mut levels = Vec::with_capacity(depth);
    for d in 0..depth {
        let ia = enc.int(&oa[d].1.clone(), &a.vals, Some(query))?;
        let ib = enc.int(&ob[d].1.clone(), &b.vals, Some(query))?;
        levels.push((ia, ib, oa[d].0, ob[d].0));
    }
    let mut before = Bool::from_bool(false);
    for (ia, ib, ka, kb) in levels.into_iter().rev() {
        let same_iteration = eq(&ia, &ib);
        let by_statement = if ka == kb { before.clone() } else { Bool::from_bool(ka < kb) };
        before = or(&[lt(&ia, &ib), and(&[same_iteration, by_statement])]);
    }
    for l in untouched_loops(checker, a.event, b.event).into_iter().rev() {
        let (Some(x), Some(y)) = (a.vals.get(&l), b.vals.get(&l)) else { continue };
        before = or(&[lt(x, y), and(&[eq(x, y), before])]);
    }
    Ok(before)
}

/// The serial loops around both events, outermost first, that the pass did not touch:
/// from the outside, up to the first loop whose variable an origin of either event
/// mentions (a loop the pass emitted for a pipeline) or where their positions part. Their
/// iterations are the original program's, in its order; thread loops are left out (both
/// instances of a query are in one thread).
fn untouched_loops(checker: &Checker, a: EventId, b: EventId) -> Vec<LoopId> {
    let m = checker.model;
    let (ea, eb) = (m.event(a), m.event(b));
    let mentioned: Vec<_> = ea.origins.iter().chain(&eb.origins).flat_map(|(_, e)| vars_of(e)).collect();
    let mut loops = Vec::new();
    for (x, y) in ea.path.iter().zip(&eb.path) {
        if x != y {
            break;
        }
        let Step::Loop(l) = x else { continue };
        if mentioned.contains(&m.loop_info(*l).var.id()) {
            break;
        }
        if !m.loop_info(*l).per_thread {
            loops.push(*l);
        }
    }
    loops
}

/// An access instance shared by the pairs of one side (see [`slot`]).
#[derive(Clone)]
struct Slot {
    inst: Instance,
    runs: Bool,
    /// The scalar element it touches.
    address: Int,
}
