//! Whether every group of a queue that holds an async store is complete when its thread ends:
//! at the end of each launch for the threads of that launch, and at the end of the function
//! for code outside every launch (queues belong to a thread for the life of its launch; a later
//! launch's waits are another thread's). An empty group left in flight is no finding (nothing
//! of it can land late; docs/async-semantics.md, as the interpreter and the PTX emulator
//! decide), so the obligation is one per async store: when an instance of it runs, its group is
//! complete at the end. Groups complete in order, so this is "the last group holding a store is
//! complete".
//!
//! Encoded once per queue ([`QueueDrained`]), with a slack on every wait like the queue's
//! safety, so that tightness can ask it again with one wait loosened.

use z3::ast::Int;

use super::checker::{governing, incomplete, mentioned, Checker, Completion, Covers, Loosen, Slack};
use super::encode::{Enc, Encoder};
use super::fold::{and, not};
use super::model::{EventId, EventKind, QueueId};
use super::names::{shown, InstanceRole, Shown, Thread};
use super::obligation::{Asked, OnVacuous, Refutation, RoundOf, WaitFailure};
use crate::solver::{ObligationId, Query};

/// The encoded "drained at every end" obligations of one queue.
pub struct QueueDrained {
    q: QueueId,
    query: Query,
    slack: Slack,
    ends: Vec<EndObligation>,
    /// The waits whose count an obligation depends on.
    waits: Vec<EventId>,
    /// The waits whose slack an obligation mentions (`waits` and the covered ones).
    mentioned: Vec<EventId>,
}

/// One end (of the function or of a launch) and one async store of its thread: the store's
/// group (for a store outside every commit scope, the next commit's) was committed and is
/// complete there.
struct EndObligation {
    end: EventId,
    store: EventId,
    obligation: ObligationId,
    /// Groups committed by the end, groups the waits completed, and the store's group.
    total: Int,
    done: Int,
    group: Int,
    /// How far a counterexample can be trusted.
    completion: Completion,
}

impl QueueDrained {
    /// Whether loosening `wait` can change the obligations.
    pub fn depends_on(&self, wait: EventId) -> bool {
        self.waits.contains(&wait)
    }
}

impl<'m> Checker<'m> {
    /// Encodes the obligations of queue `q`; `None` when the model has no end event.
    pub fn encode_drained(&mut self, q: QueueId) -> Enc<Option<QueueDrained>> {
        let ends = self.events_where(|k| matches!(k, EventKind::End));
        if ends.is_empty() {
            return Ok(None);
        }
        let mut query = self.query(&format!("{q} drained"));
        let slack = Slack::declare(&mut query, self.model, &self.waits(q))?;
        let mut enc = Encoder::new(self.model, &mut query, Thread::This)?;
        let mut obligations = Vec::new();
        let (mut waits, mut mentioned_waits) = (Vec::new(), Vec::new());
        for end in ends {
            let stores = self.stores_ending_at(q, end);
            if stores.is_empty() {
                // Only empty groups, if any: nothing to complete.
                continue;
            }
            let (e, _) = enc.instance(&mut query, end, InstanceRole::End)?;
            let total = self.committed(&mut enc, q, &e)?;
            let (done, effects) = self.completed(&mut enc, q, &e, &slack, Covers::AlsoLone)?;
            waits.extend(governing(&effects));
            mentioned_waits.extend(mentioned(&effects));
            // Every instance of a store that runs: its group (for a store outside every commit
            // scope, the next commit's, which must exist) is complete at its thread's end.
            for store in stores {
                let (si, runs) = enc.instance(&mut query, store, InstanceRole::Store(store))?;
                let group = self.group(&mut enc, q, &si)?;
                let obligation = query.require(not(&and(&[runs, incomplete(&group, &effects)])));
                let completion = self.completion(q, &e, &group, &slack);
                let (total, done) = (total.clone(), done.clone());
                obligations.push(EndObligation { end, store, obligation, total, done, group, completion });
            }
        }
        self.assume_bounds(&mut enc, &mut query);
        Ok(Some(QueueDrained { q, query, slack, ends: obligations, waits, mentioned: mentioned_waits }))
    }

    /// The async stores of queue `q` whose thread ends at `end`.
    fn stores_ending_at(&self, q: QueueId, end: EventId) -> Vec<EventId> {
        let m = self.model;
        self.events_where(|k| matches!(k, EventKind::AsyncStore { .. }))
            .into_iter()
            .filter(|s| m.same_launch(*s, end) && m.store_queue(*s) == Some(q))
            .collect()
    }

    /// Are all of the queue's groups complete at every end (with `loosen` applied)?
    pub fn drained(&self, drained: &QueueDrained, loosen: Option<Loosen>) -> Option<WaitFailure> {
        let label = format!("q{}_drained", drained.q.number());
        // Only the slacks the obligations mention, as for safety (see `Slack::facts_for`).
        let facts = || {
            if self.lasts_force_most(drained.q) {
                drained.slack.facts_for(&drained.mentioned.iter().copied().collect(), loosen)
            } else {
                drained.slack.facts(loosen)
            }
        };
        let of = RoundOf {
            query: &drained.query,
            facts: &facts,
            label: &label,
            limit: 1,
            on_vacuous: OnVacuous::Holds,
            facts_apart: true,
            earlier: None,
        };
        let asked = drained
            .ends
            .iter()
            .enumerate()
            .map(|(k, end)| Asked { index: k, obligations: vec![(end.obligation, &end.completion)] });
        let round = self.round(&of, asked, |k, _, found| {
            let end = &drained.ends[k];
            let committed = found.int(&end.total).unwrap_or(0);
            let completed = found.int(&end.done).unwrap_or(0);
            let event = self.model.event(end.end);
            let at = match self.model.launch_of(event) {
                Some(_) => format!("the launch at line {} ends", event.span.line),
                None => "the function ends".to_string(),
            };
            let store = self.model.event(end.store);
            let group = found.int(&end.group).unwrap_or(0);
            let outside = matches!(store.kind, EventKind::AsyncStore { commit: None, .. });
            let reason = if outside && group >= committed {
                format!(
                    "the async store {} (line {}) outside every commit scope is still in flight when {at}: {committed} groups of {} are committed, {} complete",
                    store.text,
                    store.span.line,
                    drained.q,
                    completed.max(0)
                )
            } else {
                let scope = if outside { " (outside every commit scope, in the next commit's group)" } else { "" };
                format!(
                    "{committed} groups of {} are committed but only {} are complete when {at}: group {group} holds the async store {}{scope} (line {})",
                    drained.q,
                    completed.max(0),
                    store.text,
                    store.span.line
                )
            };
            let mut values =
                shown(self.model, found.values(), Shown { instances: &[], threads: &[Thread::This], params: true });
            values.push("committed", committed);
            values.push("completed", completed);
            Refutation { reason, values }
        });
        round.into_failure()
    }
}
