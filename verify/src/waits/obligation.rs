//! The one shape of the verifier's obligations, and the one place that proves them.
//!
//! An obligation kind says three things ([`Obligation`]): what is asked (its items: a pair of
//! accesses, a wait; none, and no query is built), how it is encoded (one query for all the
//! items, each item one or more obligations in it, each with how far its counterexample can be
//! trusted: a [`Completion`]), and how its verdict is reported (a refuted item explained from
//! its counterexample; what an undecided verdict is about; what contradictory assumptions
//! mean). [`Checker::discharge`] runs a kind and answers its [`WaitFailure`], if any.
//!
//! Every check of the verifier goes through [`Checker::round`]: it opens the query's scope on
//! the session (its assumptions asserted once, with the facts of the round), checks each
//! obligation alone in its own push/pop scope under the query's time limit, confirms a
//! counterexample that the obligation's [`Completion`] does not trust, counts every check and
//! keeps its SMT-LIB script with its answer when dumps are asked for
//! ([`Log`](super::checker::Log)), and, when
//! every obligation held, checks the assumptions (contradictory ones would make every
//! obligation hold). The items hold together exactly when each holds, so the verdicts are
//! those of one query of all of them. Kinds encoded once and asked again under other facts
//! (a queue's safety and its drained end, with one wait loosened for tightness) keep their
//! encoding and call [`Checker::round`] themselves.
//!
//! A new kind of obligation is one file: a type that implements [`Obligation`], and a call to
//! [`Checker::discharge`] where the function's report is assembled (`mod.rs`).

use z3::ast::{forall_const, Ast, Bool};

use super::checker::{Checker, Completion};
use super::encode::{Enc, Unsupported};
use super::fold::{and, not};
use super::report::{Cause, Subject, Undecided, WaitVerdict};
use crate::solver::{Assignment, Counterexample, ObligationId, Outcome, Query, Scope, UnknownReason, Verdict};

/// The encoded items of an obligation kind: for each item, in order, its obligations, each with
/// how far its counterexample can be trusted.
pub type Encoded = Vec<Vec<(ObligationId, Completion)>>;

/// A kind of obligation about a function's waits: what is asked, how it is encoded, how its
/// verdict is reported (see the module docs).
pub trait Obligation {
    /// One thing asked.
    type Item;

    /// The name of its query (in dumps, after the function's name).
    fn name(&self) -> String;

    /// The label of its checks' dumps.
    fn label(&self) -> String;

    /// What an undecided verdict is about; `None` leaves it to the caller.
    fn subject(&self) -> Option<Subject>;

    /// What it means when every obligation held but the assumptions contradict each other.
    fn on_vacuous(&self) -> OnVacuous;

    /// What is asked; nothing (no query) when empty.
    fn items(&self, checker: &Checker) -> Vec<Self::Item>;

    /// Encodes the items into `query`: for each item, in order, its obligations, each with how
    /// far its counterexample can be trusted (the first that fails refutes the item).
    fn encode(&self, checker: &mut Checker, query: &mut Query, items: &[Self::Item]) -> Enc<Encoded>;

    /// The refutation of item `items[k]` by its obligation `which`, from the counterexample.
    fn refuted(
        &self,
        checker: &Checker,
        items: &[Self::Item],
        k: usize,
        which: usize,
        found: &Counterexample,
    ) -> Refutation;
}

/// The encoding of items that are one obligation each, whose counterexamples are exact (no
/// completion to confirm): what [`Obligation::encode`] answers for them.
pub fn one_exact_each(obligations: Vec<ObligationId>) -> Encoded {
    obligations.into_iter().map(|o| vec![(o, Completion::Exact)]).collect()
}

/// What contradictory assumptions make of an obligation whose checks all held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnVacuous {
    /// It holds: no execution reaches what it asks about.
    Holds,
    /// It is undecided ([`Cause::ContradictoryAssumptions`]).
    Undecided,
}

/// A refuted obligation: the reason, and the values that show it.
pub struct Refutation {
    pub reason: String,
    pub values: Assignment,
}

/// Why an obligation about waits is not proved.
pub enum WaitFailure {
    /// It fails: the reason, and the values that show it.
    Refuted {
        reason: String,
        values: Assignment,
    },
    Unknown(Undecided),
}

impl WaitFailure {
    /// The verdict of a wait that this failure is about.
    pub fn into_verdict(self) -> WaitVerdict {
        match self {
            WaitFailure::Refuted { reason, values } => WaitVerdict::Refuted { reason, values },
            WaitFailure::Unknown(reason) => WaitVerdict::Unknown { reason },
        }
    }
}

impl From<Refutation> for WaitFailure {
    fn from(Refutation { reason, values }: Refutation) -> Self {
        WaitFailure::Refuted { reason, values }
    }
}

/// What a round of checks found: the refuted items (at most the limit asked for), and why an
/// item or the assumptions could not be decided, if one could not.
pub struct Round<R> {
    pub refuted: Vec<R>,
    pub unknown: Option<Undecided>,
}

impl<R> Round<R> {
    /// The failure of a round whose refutations are reported (the first one) rather than
    /// collected; `None` when it held.
    pub fn into_failure(mut self) -> Option<WaitFailure>
    where
        R: Into<WaitFailure>,
    {
        if !self.refuted.is_empty() {
            return Some(self.refuted.swap_remove(0).into());
        }
        self.unknown.map(WaitFailure::Unknown)
    }
}

/// One item of a round, as encoded: its position and its obligations, checked in order.
pub struct Asked<'a> {
    pub index: usize,
    pub obligations: Vec<(ObligationId, &'a Completion)>,
}

/// How a round checks its items.
pub struct RoundOf<'a> {
    pub query: &'a Query,
    /// Facts asserted with the query's assumptions for this round (a wait's slack), built
    /// only when the round checks something: a term built changes the ids of the terms built
    /// after it, on which Z3's search depends.
    pub facts: &'a dyn Fn() -> Vec<Bool>,
    /// The label of the checks' dumps.
    pub label: &'a str,
    /// The round stops after this many refuted items.
    pub limit: usize,
    pub on_vacuous: OnVacuous,
    /// Whether `facts` only fix variables the assumptions do not mention (slacks): then
    /// assumptions found consistent once stay so, and later rounds do not check them again.
    pub facts_apart: bool,
    /// For item `k`'s obligation `which` and one of its counterexamples, the fact that asks
    /// for a counterexample strictly earlier in execution order (`None`: none is earlier, or
    /// the item's counterexamples are not ordered). With it, a refuted item is explained
    /// from its earliest counterexample: each earlier one found is confirmed like the first,
    /// and the search ends when none is earlier (proved) or at the first undecided check.
    pub earlier: Option<&'a Earlier<'a>>,
}

/// See [`RoundOf::earlier`].
pub type Earlier<'a> = dyn Fn(usize, usize, &Counterexample) -> Option<Bool> + 'a;

/// Most counterexamples asked for, each earlier than the last, when a round looks for the
/// earliest (each step is one check; a search this long ends with the last one found).
const MAX_EARLIER_STEPS: usize = 24;

impl Checker<'_> {
    /// Runs the obligation kind `kind`: its items, encoded in one query, checked one at a time
    /// until one is refuted; the first refutation, or why the kind is undecided, or `None`
    /// when every item holds.
    pub fn discharge<O: Obligation>(&mut self, kind: &O) -> Option<WaitFailure> {
        let items = kind.items(self);
        if items.is_empty() {
            return None;
        }
        let about = |why: Undecided| match kind.subject() {
            Some(subject) => why.about(subject),
            None => why,
        };
        let mut query = self.query(&kind.name());
        let encoded = match kind.encode(self, &mut query, &items) {
            Ok(encoded) => encoded,
            Err(Unsupported(why)) => return Some(WaitFailure::Unknown(about(Cause::NotEncoded(why).into()))),
        };
        let asked = encoded.iter().enumerate().map(|(index, obligations)| Asked {
            index,
            obligations: obligations.iter().map(|(o, c)| (*o, c)).collect(),
        });
        let label = kind.label();
        let of = RoundOf {
            query: &query,
            facts: &Vec::new,
            label: &label,
            limit: 1,
            on_vacuous: kind.on_vacuous(),
            facts_apart: true,
            earlier: None,
        };
        let round = self.round(&of, asked, |k, which, found| kind.refuted(self, &items, k, which, found));
        match round.into_failure() {
            Some(WaitFailure::Unknown(why)) => Some(WaitFailure::Unknown(about(why))),
            other => other,
        }
    }

    /// Checks `asked` in order (see the module docs): each item's obligations until one fails
    /// (refuting the item, explained by `refuted` from its position, the failed obligation's
    /// position and the counterexample) or is undecided (the item is then undecided), until
    /// `of.limit` items are refuted. When no item was refuted or undecided, the assumptions
    /// are checked too.
    pub fn round<'a, R>(
        &self,
        of: &RoundOf,
        asked: impl IntoIterator<Item = Asked<'a>>,
        mut refuted: impl FnMut(usize, usize, &Counterexample) -> R,
    ) -> Round<R> {
        let mut round = Round { refuted: Vec::new(), unknown: None };
        let asked: Vec<Asked> = asked.into_iter().collect();
        if asked.is_empty() {
            return round;
        }
        let scope = self.session.open(of.query, &(of.facts)());
        for item in asked {
            for (which, &(obligation, completion)) in item.obligations.iter().enumerate() {
                match self.check_completed(&scope, obligation, of.label, completion, &[]) {
                    Outcome::Holds => continue,
                    Outcome::Unknown(why) => round.unknown = round.unknown.or(Some(why.into())),
                    Outcome::Fails(found) => {
                        let found = match of.earlier {
                            Some(earlier) => self.earliest(&scope, obligation, of.label, completion, found, |found| {
                                earlier(item.index, which, found)
                            }),
                            None => found,
                        };
                        round.refuted.push(refuted(item.index, which, &found));
                    }
                }
                break;
            }
            if round.refuted.len() >= of.limit {
                return round;
            }
        }
        if round.refuted.is_empty() && round.unknown.is_none() && !(of.facts_apart && of.query.consistent()) {
            round.unknown = match scope.assumptions() {
                Verdict::Proved => {
                    if of.facts_apart {
                        of.query.mark_consistent();
                    }
                    None
                }
                Verdict::Unknown(why) => Some(why.into()),
                Verdict::Vacuous | Verdict::Refuted(_) => match of.on_vacuous {
                    OnVacuous::Holds => None,
                    OnVacuous::Undecided => Some(Cause::ContradictoryAssumptions.into()),
                },
            };
        }
        round
    }

    /// The earliest counterexample of `obligation` from `found` on: asks for one strictly
    /// earlier (`earlier` of the last one found) until none is, the answer is undecided, or
    /// [`MAX_EARLIER_STEPS`] were taken.
    fn earliest(
        &self,
        scope: &Scope,
        obligation: ObligationId,
        label: &str,
        completion: &Completion,
        mut found: Counterexample,
        earlier: impl Fn(&Counterexample) -> Option<Bool>,
    ) -> Counterexample {
        for _ in 0..MAX_EARLIER_STEPS {
            let Some(fact) = earlier(&found) else { break };
            match self.check_completed(scope, obligation, label, completion, &[fact]) {
                Outcome::Fails(sooner) => found = sooner,
                Outcome::Holds | Outcome::Unknown(_) => break,
            }
        }
        found
    }

    /// Checks `obligation` of `scope` (under `extra` facts, when there are some); a
    /// counterexample that `completion` does not trust is confirmed (no earlier wait instance
    /// completes the group there) or, failing that, the obligation is checked again with every
    /// earlier instance taken into account.
    fn check_completed(
        &self,
        scope: &Scope,
        obligation: ObligationId,
        label: &str,
        completion: &Completion,
        extra: &[Bool],
    ) -> Outcome {
        let first = if extra.is_empty() {
            self.log.check(scope, obligation, label)
        } else {
            self.log.count();
            scope.check_under(obligation, extra)
        };
        let found = match first {
            Outcome::Fails(found) => found,
            decided => return decided,
        };
        // A counterexample past a trap (a divisor of 0 where a condition is evaluated)
        // describes no complete run: look for one that does, or say that none does.
        let mut trap_free = scope.trap_free().to_vec();
        let breaks_one = trap_free.iter().any(|fact| !found.satisfies(fact));
        trap_free.extend(extra.iter().cloned());
        let found = if breaks_one {
            self.log.count();
            match scope.check_under(obligation, &trap_free) {
                Outcome::Fails(found) => found,
                Outcome::Holds => {
                    return Outcome::Unknown(UnknownReason::Unconfirmed(
                        "every counterexample divides by zero where a condition is evaluated, which traps first".into(),
                    ))
                }
                unknown @ Outcome::Unknown(_) => return unknown,
            }
        } else {
            found
        };
        let resolved;
        let completion = match completion {
            Completion::Pending { queue, points, group, slack } => {
                resolved = self.resolve(*queue, points, group, slack);
                &resolved
            }
            other => other,
        };
        let witness = match completion {
            Completion::Exact | Completion::Pending { .. } => return Outcome::Fails(found),
            Completion::Inexact(why) => return Outcome::Unknown(UnknownReason::Unconfirmed(why.clone())),
            Completion::Witnessed(witness) => witness,
        };
        let none_earlier = not(&witness.completes);
        if !witness.reads_memory {
            self.log.count();
            match scope.check_claim(&none_earlier, &scope.pinned(&found)) {
                Outcome::Holds => return Outcome::Fails(found),
                Outcome::Unknown(why) => return Outcome::Unknown(why),
                Outcome::Fails(_) => {}
            }
        }
        // An earlier instance may complete the group in this counterexample: ask for one where
        // none does (a quantifier, so only after the cheap encoding failed).
        let mut body = witness.ranges.clone();
        body.push(none_earlier);
        let body = and(&body);
        let bound: Vec<&dyn Ast> = witness.bound.iter().map(|v| v as &dyn Ast).collect();
        let none_at_all = if bound.is_empty() { body } else { forall_const(&bound, &[], &body) };
        self.log.count();
        let mut extra = vec![none_at_all];
        extra.extend(trap_free);
        scope.check_under(obligation, &extra)
    }
}
