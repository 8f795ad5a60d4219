//! The checker of one function's waits: the solver session every query runs on, the record
//! of the checks (how many, their SMT-LIB dumps, the loops whose encoding is bounded), and
//! the counts the obligations are built from.
//!
//! For a use `u` of an address that an async store instance `s` wrote earlier, the group of
//! `s` must be complete: `group(s) < completed(u)`, where `completed(u)` is the most any
//! earlier wait forced, `max over wait statements W of committed(last W before u) - count(W)`.
//! This takes the last instance of each wait statement, which is exact when a wait's
//! `committed - count` does not decrease from one of its instances to the next (true of
//! pipelined loops; a program where it decreases may get a refutation the interpreter cannot
//! reproduce). Queries state "not complete" as [`incomplete`], a conjunction over the waits,
//! rather than through the maximum: the solver then needs no case split per wait.
//!
//! A wait's count is `count + slack` when the query declares a slack for it ([`Slack`]): one
//! encoding then answers "is it still safe with this wait loosened by k" for every k.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tirproof_ir::Expr;
use z3::ast::{Bool, Int};

use super::encode::{Enc, Encoder, Instance, Unsupported};
use super::fold::{add, and, eq, ge, implies, ite, lt, max, mul, not, sub};
use super::model::{Access, Event, EventId, EventKind, LoopId, Model};
use crate::solver::{Counterexample, Outcome, Query, Scope, Session, Verdict, Watchdog};

/// A change to one wait's count, to ask whether a larger count would still be safe: `by`
/// more, or (with `at_least`) any amount from `by` on.
#[derive(Clone, Copy, Debug)]
pub struct Loosen {
    pub wait: EventId,
    pub by: i64,
    pub at_least: bool,
}

/// A wait statement's last instance before a point: the wait, whether it exists, and how
/// many groups it forced complete.
pub type WaitEffect = (EventId, Bool, Int);

pub enum WaitFailure {
    Refuted(String, Vec<(String, i64)>),
    Unknown(String),
}

/// One slack variable per wait of a queue, added to the wait's count in a query; its value
/// is fixed per check ([`Slack::facts`]).
#[derive(Default)]
pub struct Slack(BTreeMap<EventId, Int>);

impl Slack {
    /// Declares a slack for each of `waits` in `query`.
    pub fn declare(query: &mut Query, waits: &[EventId]) -> Enc<Slack> {
        let mut slack = BTreeMap::new();
        for &w in waits {
            slack.insert(w, declare_int(query, &format!("slack_{w}"))?);
        }
        Ok(Slack(slack))
    }

    /// The facts that fix every slack: `loosen.by` (or at least that) for the loosened wait,
    /// 0 for the others.
    pub fn facts(&self, loosen: Option<Loosen>) -> Vec<Bool> {
        let fact = |(w, s): (&EventId, &Int)| match loosen.filter(|l| l.wait == *w) {
            Some(Loosen { by, at_least: true, .. }) => s.ge(Int::from_i64(by)),
            Some(Loosen { by, .. }) => s.eq(Int::from_i64(by)),
            None => s.eq(Int::from_i64(0)),
        };
        self.0.iter().map(fact).collect()
    }

    fn of(&self, wait: EventId) -> Option<&Int> {
        self.0.get(&wait)
    }
}

/// The logic the checker's solver is configured for: the queries are integer arithmetic
/// (linear but for products with a symbolic extent). Of the configurations measured on the
/// fuzzers' programs, this one was fastest: the verifier took 20% less time than with Z3
/// configuring each check itself, and 25% less than with `QF_LIA`'s configuration.
const QUERY_LOGIC: &str = "QF_UFLIA";

/// How many checks ran, and their SMT-LIB scripts when dumps are asked for. (Counted behind
/// a shared reference: a check runs while its scope borrows the checker's session.)
pub struct Log {
    queries: Cell<usize>,
    dumps: Option<RefCell<Vec<(String, String)>>>,
    name: String,
}

impl Log {
    /// Checks obligation `index` of `scope`, counting it and keeping its script.
    pub fn check(&self, scope: &Scope, index: usize, label: &str) -> Outcome {
        self.queries.set(self.queries.get() + 1);
        if let Some(dumps) = &self.dumps {
            dumps.borrow_mut().push((format!("{}_{label}", self.name), scope.to_smtlib(index)));
        }
        scope.check(index)
    }

    pub fn queries(&self) -> usize {
        self.queries.get()
    }

    /// The scripts kept so far (none when dumps were not asked for).
    pub fn take_dumps(&mut self) -> Vec<(String, String)> {
        self.dumps.as_mut().map(|d| std::mem::take(d.get_mut())).unwrap_or_default()
    }
}

pub struct Checker<'m> {
    pub model: &'m Model,
    pub session: Session<'m>,
    pub log: Log,
    /// Loops whose conditions were counted by enumeration: proofs assume they have at most
    /// `ENUMERATED_ITERATIONS` iterations.
    pub bounded: BTreeSet<LoopId>,
    pub timeout: Duration,
    pub name: String,
}

impl<'m> Checker<'m> {
    pub fn new(model: &'m Model, name: &str, (timeout, watchdog): (Duration, &'m Watchdog<'m>), dump: bool) -> Self {
        Checker {
            model,
            session: Session::for_logic(watchdog, QUERY_LOGIC),
            log: Log { queries: Cell::new(0), dumps: dump.then(RefCell::default), name: name.to_owned() },
            bounded: BTreeSet::new(),
            timeout,
            name: name.to_owned(),
        }
    }

    /// A query of this function with the checker's time limit.
    pub fn query(&self, what: &str) -> Query {
        Query::new(format!("{} {what}", self.name)).with_timeout(self.timeout)
    }

    /// Adds the assumptions of the bounded encodings to the query, and remembers the loops.
    pub fn assume_bounds(&mut self, enc: &mut Encoder, query: &mut Query) {
        for (l, fits) in enc.bounded.drain(..) {
            query.assume(fits);
            self.bounded.insert(l);
        }
    }

    /// Checks obligation `index` of `query` under its assumptions and `extra`, as
    /// [`Query::check`] would check a query of that one obligation.
    pub fn prove(&self, query: &Query, extra: &[Bool], index: usize, label: &str) -> Result<(), Failure> {
        let scope = self.session.open(query, extra);
        match self.log.check(&scope, index, label) {
            Outcome::Holds => match scope.assumptions() {
                Verdict::Proved => Ok(()),
                Verdict::Unknown(why) => Err(Failure::Unknown(why)),
                Verdict::Vacuous | Verdict::Refuted(_) => Err(Failure::Vacuous),
            },
            Outcome::Fails(counterexample) => Err(Failure::Refuted(counterexample)),
            Outcome::Unknown(why) => Err(Failure::Unknown(why)),
        }
    }

    pub fn waits(&self, q: i64) -> Vec<EventId> {
        self.events_where(|k| matches!(k, EventKind::Wait { queue, .. } if *queue == q))
    }

    fn commits(&self, q: i64) -> Vec<EventId> {
        self.events_where(|k| matches!(k, EventKind::Commit { queue } if *queue == q))
    }

    pub fn events_where(&self, pred: impl Fn(&EventKind) -> bool) -> Vec<EventId> {
        self.model.events.iter().enumerate().filter(|(_, e)| pred(&e.kind)).map(|(i, _)| i).collect()
    }

    /// Groups of `q` committed before instance `at`.
    pub fn committed(&self, enc: &mut Encoder, q: i64, at: &Instance) -> Enc<Int> {
        let mut terms = vec![Int::from_i64(0)];
        for k in self.commits(q) {
            terms.push(enc.count_before(k, at)?);
        }
        Ok(add(&terms))
    }

    /// The in-flight count of a wait at one of its instances, plus its slack if it has one.
    pub fn count_of(&self, enc: &mut Encoder, wait: EventId, at: &Instance, slack: &Slack) -> Enc<Int> {
        let EventKind::Wait { count, .. } = &self.model.events[wait].kind else {
            return Err(Unsupported("not a wait".into()));
        };
        let n = enc.int(&count.clone(), at, None)?;
        Ok(match slack.of(wait) {
            Some(s) => add(&[n, s.clone()]),
            None => n,
        })
    }

    /// `completed(u)` and, per wait statement, whether its last instance exists and what it
    /// forced (`committed - count`).
    pub fn completed(&self, enc: &mut Encoder, q: i64, at: &Instance, slack: &Slack) -> Enc<(Int, Vec<WaitEffect>)> {
        let mut done = Int::from_i64(0);
        let mut per_wait = Vec::new();
        for w in self.waits(q) {
            let (exists, last) = enc.last_before(w, at)?;
            let forced = sub(&self.committed(enc, q, &last)?, &self.count_of(enc, w, &last, slack)?);
            done = ite(&exists, &max(&done, &forced), &done);
            per_wait.push((w, exists, forced));
        }
        Ok((done, per_wait))
    }

    /// The group an async store instance belongs to.
    pub fn group(&self, enc: &mut Encoder, q: i64, store: &Instance) -> Enc<Int> {
        let EventKind::AsyncStore { commit: Some(k), .. } = &self.model.events[store.event].kind else {
            return Err(Unsupported("an async store outside a commit scope".into()));
        };
        let commit_loops = self.model.loops_of(&self.model.events[*k]);
        let vals = store.vals.iter().filter(|(l, _)| commit_loops.contains(l)).map(|(l, v)| (*l, v.clone())).collect();
        self.committed(enc, q, &Instance { event: *k, vals })
    }

    /// The two accesses touch one scalar element of the storage.
    pub fn same_address(
        &self,
        enc: &mut Encoder,
        query: &mut Query,
        k: usize,
        s: &Instance,
        u: &Instance,
    ) -> Enc<Bool> {
        let a = self.address(enc, query, &format!("lane_s{k}"), s)?;
        let b = self.address(enc, query, &format!("lane_u{k}"), u)?;
        Ok(eq(&a, &b))
    }

    /// The scalar element an access touches (a vector access: one of its lanes, chosen freely).
    pub fn address(&self, enc: &mut Encoder, query: &mut Query, lane_name: &str, inst: &Instance) -> Enc<Int> {
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
            flat.push(mul(&[enc.int(&base, inst, Some(query))?, stride.clone()]));
            if let Some(step) = step {
                let lane = lane_in(query, &format!("{lane_name}_{d}"), i64::from(lanes))?;
                lane_terms.push(mul(&[lane, enc.int(&step, inst, Some(query))?, stride]));
            }
        }
        let elem_lanes = i64::from(node.dtype.lanes);
        let mut scalar = mul(&[add(&flat), Int::from_i64(elem_lanes)]);
        if elem_lanes > 1 {
            scalar = add(&[scalar, lane_in(query, &format!("{lane_name}_elem"), elem_lanes)?]);
        }
        lane_terms.iter().for_each(|t| scalar = add(&[scalar.clone(), mul(&[t.clone(), Int::from_i64(elem_lanes)])]));
        Ok(scalar)
    }

    /// Is some executed instance of `wait` negative?
    pub fn negative(&mut self, wait: EventId) -> Option<WaitFailure> {
        if let EventKind::Wait { count, .. } = &self.model.events[wait].kind {
            if count.as_int().is_some_and(|n| n >= 0) {
                return None;
            }
        }
        let mut query = self.query("negative count");
        let built: Enc<usize> = (|| {
            let mut enc = Encoder::new(self.model, &mut query, "thread_")?;
            let (w, runs) = enc.instance(&mut query, wait, "w")?;
            let n = self.count_of(&mut enc, wait, &w, &Slack::default())?;
            let index = query.require(not(&and(&[runs, lt(&n, &Int::from_i64(0))])));
            self.assume_bounds(&mut enc, &mut query);
            Ok(index)
        })();
        let index = match built {
            Ok(index) => index,
            Err(Unsupported(why)) => return Some(WaitFailure::Unknown(format!("not encoded exactly: {why}"))),
        };
        match self.prove(&query, &[], index, &format!("w{wait}_negative")) {
            Ok(()) | Err(Failure::Vacuous) => None,
            Err(Failure::Refuted(counterexample)) => {
                let values = counterexample.values().to_vec();
                let at = loop_values(self.model, &values, "w").map_or(String::new(), |v| format!(" at {v}"));
                Some(WaitFailure::Refuted(format!("the in-flight count is negative{at}"), values))
            }
            Err(Failure::Unknown(why)) => Some(WaitFailure::Unknown(why)),
        }
    }
}

/// Why an obligation is not proved.
pub enum Failure {
    Refuted(Counterexample),
    Unknown(String),
    Vacuous,
}

/// The group `group` is not complete after the waits `effects` (with `completed` as in the
/// module docs: `group >= completed`), as a conjunction over the waits.
pub fn incomplete(group: &Int, effects: &[WaitEffect]) -> Bool {
    let mut all = vec![ge(group, &Int::from_i64(0))];
    all.extend(effects.iter().map(|(_, exists, forced)| implies(exists, &ge(group, forced))));
    and(&all)
}

/// The waits of `effects` whose last instance can exist: the only ones whose slack can change
/// an obligation built from `effects`.
pub fn governing(effects: &[WaitEffect]) -> impl Iterator<Item = EventId> + '_ {
    effects.iter().filter(|(_, exists, _)| exists.as_bool() != Some(false)).map(|(w, _, _)| *w)
}

/// Declares an integer variable, as an encoding error when the name is taken.
pub fn declare_int(query: &mut Query, name: &str) -> Enc<Int> {
    query.int(name).map_err(|e| Unsupported(e.to_string()))
}

/// A fresh lane index in `[0, lanes)`.
fn lane_in(query: &mut Query, name: &str, lanes: i64) -> Enc<Int> {
    let lane = declare_int(query, name)?;
    query.assume(Bool::and(&[lane.ge(Int::from_i64(0)), lane.lt(Int::from_i64(lanes))]));
    Ok(lane)
}

pub fn is_write(event: &Event) -> bool {
    matches!(event.kind, EventKind::Use { write: true, .. } | EventKind::AsyncStore { .. })
}

pub fn access_of(event: &Event) -> Option<&Access> {
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
pub fn loop_values(model: &Model, values: &[(String, i64)], prefix: &str) -> Option<String> {
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
