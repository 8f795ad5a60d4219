//! What a proved wait is for, beyond its verdict: whether it completes anything at all, how
//! far a count claimed for tokens falls below what the tokens allow, and which of several
//! tokens the uses after the wait do not need.
//!
//! Each remark is a claim about every instance of the wait, proved like any obligation
//! ([`WaitProbe`]); a probe that is refuted or undecided gives no remark, so a remark is never
//! a guess:
//!
//! * **redundant**: at every instance, the groups the wait forces complete were already
//!   forced by the waits before it (`committed - count <= completed`): no commit since an
//!   equal or stronger wait, or its tokens already complete;
//! * **claim below its tokens**: a count written next to tokens is at least `d` below what
//!   the tokens leave in flight at every instance (the largest such `d` is found by doubling
//!   and bisecting, as tightness does): the tokens allow the count plus `d`;
//! * **token not needed**: with the wait proved over-synchronized by `good` (safe with its
//!   count `good` larger), dropping token `k` leaves at most `good` more in flight at every
//!   instance, so the uses after the wait are still safe without it (an over-coarse token
//!   set: Triton's attention waits for K and V before a dot that reads K). A token that a
//!   newer one implies at every instance (dropping it changes nothing) is not named.

use z3::ast::Int;

use super::checker::{Checker, Completion, Covers, Slack};
use super::encode::{Enc, Encoder};
use super::fold::{add, and, ge, le, max, not, sub};
use super::model::{EventId, EventKind, Until};
use super::names::{InstanceRole, Thread};
use super::obligation::{Encoded, Obligation, OnVacuous, Refutation};
use super::report::{Subject, WaitRemark, WaitVerdict};
use crate::solver::{Counterexample, Query};

/// The most a claim is measured below its tokens.
const MAX_SPARE: i64 = 64;

/// What a probe asks of every instance of a wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// It forces nothing the waits before it did not.
    Redundant,
    /// The tokens leave at least this many more in flight than the written count.
    ClaimSpare(i64),
    /// Without token `token`, at most `within` more groups stay in flight.
    TokenUnneeded { token: usize, within: i64 },
}

/// "Every instance of `wait` satisfies `probe`".
pub struct WaitProbe {
    pub wait: EventId,
    pub probe: Probe,
}

impl Obligation for WaitProbe {
    type Item = EventId;

    fn name(&self) -> String {
        "remarks".into()
    }

    fn label(&self) -> String {
        format!("w{}_probe", self.wait.index())
    }

    fn subject(&self) -> Option<Subject> {
        None
    }

    fn on_vacuous(&self) -> OnVacuous {
        OnVacuous::Undecided
    }

    fn items(&self, _checker: &Checker) -> Vec<EventId> {
        vec![self.wait]
    }

    fn encode(&self, checker: &mut Checker, query: &mut Query, _items: &[EventId]) -> Enc<Encoded> {
        let wait = self.wait;
        let EventKind::Wait { queue, .. } = checker.model.event(wait).kind else {
            return Err(super::encode::Unsupported("not a wait".into()));
        };
        let mut enc = Encoder::new(checker.model, query, Thread::This)?;
        let (w, runs) = enc.instance(query, wait, InstanceRole::Wait)?;
        let holds = match self.probe {
            Probe::Redundant => {
                let forced = sub(
                    &checker.committed(&mut enc, queue, &w)?,
                    &checker.count_of(&mut enc, wait, &w, &Slack::default())?,
                );
                let (done, _) = checker.completed(&mut enc, queue, &w, &Slack::default(), Covers::Pairs)?;
                le(&forced, &done)
            }
            Probe::ClaimSpare(d) => {
                let terms = checker.token_wait(&mut enc, wait, &w)?;
                let claimed = checker
                    .written_count(&mut enc, wait, &w)?
                    .ok_or_else(|| super::encode::Unsupported("no count is claimed".into()))?;
                ge(&terms.keep, &add(&[claimed, Int::from_i64(d)]))
            }
            Probe::TokenUnneeded { token, within } => {
                let terms = checker.token_wait(&mut enc, wait, &w)?;
                let others = terms.tokens.iter().enumerate().filter(|(k, _)| *k != token).map(|(_, t)| t.group.clone());
                let newest = others
                    .reduce(|a, b| max(&a, &b))
                    .ok_or_else(|| super::encode::Unsupported("a wait on one token".into()))?;
                let keep_without = sub(&terms.committed, &add(&[newest, Int::from_i64(1)]));
                le(&keep_without, &add(&[terms.keep, Int::from_i64(within)]))
            }
        };
        let obligation = query.require(not(&and(&[runs, not(&holds)])));
        checker.assume_bounds(&mut enc, query);
        Ok(vec![vec![(obligation, Completion::Exact)]])
    }

    fn refuted(
        &self,
        _checker: &Checker,
        _items: &[EventId],
        _k: usize,
        _which: usize,
        found: &Counterexample,
    ) -> Refutation {
        // A refuted probe only withholds a remark; its values are not shown.
        Refutation { reason: format!("{:?} does not hold", self.probe), values: found.values().clone() }
    }
}

/// The remarks a proved wait earns (see the module docs); `verdict` is its verdict so far.
pub fn remarks(checker: &mut Checker, wait: EventId, verdict: &WaitVerdict) -> Vec<WaitRemark> {
    if !verdict.is_proved() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let holds = |checker: &mut Checker, probe: Probe| checker.discharge(&WaitProbe { wait, probe }).is_none();
    // A redundant wait can be loosened by any amount, so only a wait whose tightness says so
    // (or was not measured) is asked.
    let may_be_redundant =
        matches!(verdict, WaitVerdict::Proved | WaitVerdict::ProvedOverSynchronized { best: None, by: None });
    if may_be_redundant && holds(checker, Probe::Redundant) {
        out.push(WaitRemark::Redundant);
    }
    let (claimed, tokens) = match &checker.model.event(wait).kind {
        EventKind::Wait { until: Until::Tokens { tokens, claimed, .. }, .. } => (claimed.is_some(), tokens.len()),
        _ => return out,
    };
    if claimed && holds(checker, Probe::ClaimSpare(1)) {
        // Double, then bisect, as tightness does.
        let (mut good, mut bad) = (1, None);
        let mut d = 2;
        while d <= MAX_SPARE {
            if holds(checker, Probe::ClaimSpare(d)) {
                good = d;
            } else {
                bad = Some(d);
                break;
            }
            d *= 2;
        }
        if let Some(mut bad) = bad {
            while bad - good > 1 {
                let mid = (good + bad) / 2;
                if holds(checker, Probe::ClaimSpare(mid)) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
        }
        out.push(WaitRemark::ClaimBelowTokens { by: good });
    }
    // A claimed count runs whatever the tokens: only a wait on tokens alone needs them all.
    if let (WaitVerdict::ProvedOverSynchronized { by: Some(within), .. }, false) = (verdict, claimed) {
        // A token that a newer one implies everywhere changes nothing when dropped (`within`
        // 0 holds): only one that some instance waits for is named.
        for token in (0..tokens).filter(|_| tokens > 1) {
            if !holds(checker, Probe::TokenUnneeded { token, within: 0 })
                && holds(checker, Probe::TokenUnneeded { token, within: *within })
            {
                let EventKind::Wait { until: Until::Tokens { shown, .. }, .. } = &checker.model.event(wait).kind else {
                    break;
                };
                out.push(WaitRemark::TokenNotNeeded { token: shown[token].clone() });
            }
        }
    }
    out
}
