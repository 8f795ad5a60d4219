//! Whether a wait's in-flight count is ever negative when it runs: one obligation per wait
//! whose count is not a non-negative constant.

use z3::ast::Int;

use super::checker::{Checker, Completion, Slack};
use super::encode::{Enc, Encoder};
use super::fold::{and, lt, not};
use super::model::{EventId, EventKind};
use super::names::{loop_values, shown, InstanceRole, Shown, Thread};
use super::obligation::{Encoded, Obligation, OnVacuous, Refutation};
use super::report::Subject;
use crate::solver::{Counterexample, Query};

/// "No executed instance of `wait` has a negative count".
pub struct NegativeCount {
    pub wait: EventId,
}

impl Obligation for NegativeCount {
    type Item = EventId;

    fn name(&self) -> String {
        "negative count".into()
    }

    fn label(&self) -> String {
        format!("w{}_negative", self.wait.index())
    }

    fn subject(&self) -> Option<Subject> {
        None
    }

    /// Contradictory assumptions: no instance of the wait runs.
    fn on_vacuous(&self) -> OnVacuous {
        OnVacuous::Holds
    }

    fn items(&self, checker: &Checker) -> Vec<EventId> {
        match &checker.model.event(self.wait).kind {
            // A wait on tokens alone names groups: `tokens.rs` checks they are committed.
            EventKind::Wait { until, .. } => match until.runs() {
                Some(count) if count.as_int().is_some_and(|n| n >= 0) => Vec::new(),
                Some(_) => vec![self.wait],
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn encode(&self, checker: &mut Checker, query: &mut Query, _waits: &[EventId]) -> Enc<Encoded> {
        let wait = self.wait;
        let mut enc = Encoder::new(checker.model, query, Thread::This)?;
        let (w, runs) = enc.instance(query, wait, InstanceRole::Wait)?;
        let n = checker.count_of(&mut enc, wait, &w, &Slack::default())?;
        let obligation = query.require(not(&and(&[runs, lt(&n, &Int::from_i64(0))])));
        checker.assume_bounds(&mut enc, query);
        Ok(vec![vec![(obligation, Completion::Exact)]])
    }

    fn refuted(
        &self,
        checker: &Checker,
        _waits: &[EventId],
        _k: usize,
        _which: usize,
        found: &Counterexample,
    ) -> Refutation {
        let found = found.values();
        let wait = self.wait;
        let event = checker.model.event(wait);
        let at = loop_values(checker.model, found, InstanceRole::Wait, event);
        let reason = format!("the in-flight count is negative{}", at.map_or(String::new(), |v| format!(" at {v}")));
        let instances = [(InstanceRole::Wait, wait)];
        let values =
            shown(checker.model, found, Shown { instances: &instances, threads: &[Thread::This], params: true });
        Refutation { reason, values }
    }
}
