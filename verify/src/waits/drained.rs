//! Whether every group of a queue is complete when the function ends.
//!
//! Encoded once per queue ([`QueueDrained`]), with a slack on every wait like the queue's
//! safety, so that tightness can ask it again with one wait loosened.

use z3::ast::Int;

use super::checker::{governing, incomplete, Checker, Completion, Loosen, Slack};
use super::encode::{Enc, Encoder};
use super::fold::{not, sub};
use super::model::{EventId, EventKind, QueueId};
use super::names::{shown, InstanceRole, Shown, Thread};
use super::obligation::{Asked, OnVacuous, Refutation, RoundOf, WaitFailure};
use crate::solver::{ObligationId, Query};

/// The encoded "drained at the end" obligation of one queue.
pub struct QueueDrained {
    q: QueueId,
    query: Query,
    slack: Slack,
    obligation: ObligationId,
    /// Groups committed by the end, and groups the waits completed.
    total: Int,
    done: Int,
    /// The waits whose count the obligation depends on.
    waits: Vec<EventId>,
    /// How far a counterexample can be trusted.
    completion: Completion,
}

impl QueueDrained {
    /// Whether loosening `wait` can change the obligation.
    pub fn depends_on(&self, wait: EventId) -> bool {
        self.waits.contains(&wait)
    }
}

impl<'m> Checker<'m> {
    /// Encodes the obligation of queue `q`; `None` when the model has no end event.
    pub fn encode_drained(&mut self, q: QueueId) -> Enc<Option<QueueDrained>> {
        let Some(end) = self.events_where(|k| matches!(k, EventKind::End)).first().copied() else {
            return Ok(None);
        };
        let mut query = self.query(&format!("{q} drained"));
        let slack = Slack::declare(&mut query, self.model, &self.waits(q))?;
        let mut enc = Encoder::new(self.model, &mut query, Thread::This)?;
        let (e, _) = enc.instance(&mut query, end, InstanceRole::End)?;
        let total = self.committed(&mut enc, q, &e)?;
        let (done, effects) = self.completed(&mut enc, q, &e, &slack)?;
        // All complete: the last group, `total - 1`, is.
        let last = sub(&total, &Int::from_i64(1));
        let obligation = query.require(not(&incomplete(&last, &effects)));
        self.assume_bounds(&mut enc, &mut query);
        let waits = governing(&effects).collect();
        let completion = self.completion(q, &e, &last, &slack);
        Ok(Some(QueueDrained { q, query, slack, obligation, total, done, waits, completion }))
    }

    /// Are all of the queue's groups complete when the function ends (with `loosen` applied)?
    pub fn drained(&self, drained: &QueueDrained, loosen: Option<Loosen>) -> Option<WaitFailure> {
        let label = format!("q{}_drained", drained.q.number());
        let of = RoundOf {
            query: &drained.query,
            facts: &|| drained.slack.facts(loosen),
            label: &label,
            limit: 1,
            on_vacuous: OnVacuous::Holds,
        };
        let asked = [Asked { index: 0, obligations: vec![(drained.obligation, &drained.completion)] }];
        let round = self.round(&of, asked, |_, _, found| {
            let committed = found.int(&drained.total).unwrap_or(0);
            let completed = found.int(&drained.done).unwrap_or(0);
            let reason = format!(
                "{committed} groups of {} are committed but only {} are complete when the function ends",
                drained.q,
                completed.max(0)
            );
            let mut values =
                shown(self.model, found.values(), Shown { instances: &[], threads: &[Thread::This], params: true });
            values.push("committed", committed);
            values.push("completed", completed);
            Refutation { reason, values }
        });
        round.into_failure()
    }
}
