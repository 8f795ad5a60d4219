//! Translating the model into Z3 terms: expressions, event instances, program order, and the
//! closed forms that count commits and find the last wait before a point, without unrolling.
//!
//! An instance of an event is one integer per loop on its path (iteration values); thread and
//! block loops use one variable per query, so every instance of a query belongs to one thread.
//! Conditions on commits and waits must be conjunctions of comparisons that are affine in one
//! loop variable with coefficient +1 or -1 (or mention no loop variable): each restricts that
//! variable to an interval, which is what makes the counts closed forms. Anything else is
//! reported as unsupported rather than approximated.
//!
//! Integer expressions have the program's fixed-width semantics: a result whose exact value
//! may leave its type (`ranges`) is wrapped, division and modulo by a divisor that may be zero
//! use Z3's total division (the interpreter traps there and runs nothing after, so any value
//! over-approximates it), shifts by constants and masks `& (2^k - 1)` are exact. Values read from memory (loads, and variables a `let` binds to them), and float
//! comparisons in conditions, are fresh unknowns: any value the type allows, chosen per
//! encoding, which over-approximates what the program can do.
//!
//! Layout, one concept a file: `instances` (the variables of an event instance, the
//! constraint that it runs, loop bounds, program order), `expr` (expressions, conditions and
//! wait counts as terms, the unknowns of data), `guards` (an event's conditions as intervals
//! of loop variables), `counts` (how many instances of an event run before a point) and
//! `last` (the last instance of an event before a point); this file holds the encoder's
//! state and the types they share.

mod counts;
mod expr;
mod guards;
mod instances;
mod last;
mod wrapped;

use std::collections::{BTreeMap, HashMap};

use tirproof_ir::VarId;
use z3::ast::{Bool, Int};

use crate::solver::Query;
use crate::waits::fold::{and, ge, le};
use crate::waits::model::{Event, EventId, LoopId, Model};
use crate::waits::names::{Role, Thread};
use crate::waits::ranges::Ranges;

use expr::*;
pub(crate) use guards::ite_bool;
use guards::*;

/// Why a construct has no exact encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

pub type Enc<T> = Result<T, Unsupported>;

/// Values of loop variables, by loop.
pub type LoopValues = BTreeMap<LoopId, Int>;

/// Values of the loop variables of one event instance.
#[derive(Clone)]
pub struct Instance {
    pub event: EventId,
    pub vals: LoopValues,
}

/// What identifies an instance in a query: its event and its loop values (Z3 terms compare
/// and hash by identity, and equal terms are one term).
type InstanceKey = (EventId, Vec<(LoopId, Int)>);

impl Instance {
    fn key(&self) -> InstanceKey {
        (self.event, self.vals.iter().map(|(l, v)| (*l, v.clone())).collect())
    }
}

/// Iterations a loop may have when a condition on it is not an interval: counts enumerate
/// them, and the query assumes the loop has no more (the report says so).
pub const ENUMERATED_ITERATIONS: i64 = 64;

pub struct Encoder<'m> {
    pub model: &'m Model,
    pub params: HashMap<VarId, Int>,
    /// One variable per thread or block loop, shared by every instance in the query.
    pub threads: LoopValues,
    counter: usize,
    /// Loop bounds and event conditions already encoded (they depend on the parameters only;
    /// bounds that mention a loop variable are not kept).
    bounds: HashMap<LoopId, (Int, Int)>,
    /// An event's guard, per thread (a condition on a thread variable is a fact about the
    /// thread the guard was built for).
    guards: HashMap<InstanceKey, Guard>,
    /// Closed forms already built, by event and instance: a use's completed groups ask for
    /// the same commit counts and last waits at the same instances again and again (every
    /// wait of a queue times every commit), and Z3 terms are hash-consed, so equal instances
    /// have equal keys.
    counts: HashMap<(EventId, InstanceKey), Int>,
    lasts: HashMap<(EventId, InstanceKey), (Bool, Instance)>,
    /// Assumptions the bounded encodings made (loops with at most ENUMERATED_ITERATIONS
    /// iterations); every query must assume them.
    pub bounded: Vec<(LoopId, Bool)>,
    /// Value ranges, which decide where arithmetic must wrap.
    ranges: Ranges<'m>,
    /// Loops whose extent the query bounds by the in-bounds precondition.
    iteration_bounded: std::collections::BTreeSet<LoopId>,
    /// Facts about the unknowns of data read from memory (their types' ranges), which every
    /// query must assume.
    pub deferred: Vec<Bool>,
    /// Values of the count variables of commits under conditions on data that satisfy the
    /// deferred facts at once (every condition taken as true): hints to the check that the
    /// assumptions can hold (see `Query::hint`).
    pub hints: Vec<Bool>,
    /// A wait count or a loop's bounds read from memory are being encoded (see
    /// [`Encoder::unknown`]).
    data_counts: bool,
    /// Bounds read from memory, per loop and thread (see [`Encoder::data_bounds`]).
    data_bounds: HashMap<(LoopId, Vec<Int>), (Int, Int)>,
    /// The counts of events under a condition on data met so far, per event: the point, its
    /// count variable and the most it can be (see `counts.rs`).
    data_points: HashMap<EventId, Vec<counts::DataPoint>>,
    /// The instances of the query under conditions on data, with whether those held: an
    /// async store whose conditions held ran its commit scope's commit.
    ran_on_data: Vec<(Instance, Bool)>,
    /// How many last instances of events under a condition on data were chosen so far.
    data_lasts: usize,
    /// The query has instances of two threads: a condition on data read by both is one value
    /// for both (nothing writes the memory it reads), which the per-thread choices of
    /// `counts.rs` and `last.rs` do not express, so they are not made.
    two_threads: bool,
    /// When set, a value read from memory is a function of these values (an instance's loop
    /// values) rather than one constant: an encoding quantified over the instances then
    /// gives each its own value.
    pub per_instance: Option<Vec<Int>>,
    /// When set, the values read from memory are named after a site and their order in it
    /// rather than afresh, so that every encoding of the site is one function (the bounds of
    /// a loop inside a serial loop, [`Encoder::data_bounds`]).
    load_site: Option<(String, usize)>,
    /// The points at which sums over a loop of counts read from memory were taken, per
    /// path, step and loop (see `counts.rs`).
    prefix_points: HashMap<(Vec<crate::waits::model::Step>, usize, LoopId), Vec<counts::PrefixPoint>>,
    /// Choices made for conditions on data in two threads' instances, each free per thread:
    /// both threads may read one element, which is one value for both, so a counterexample
    /// that rests on them may ask for two values of it and is not trusted (see
    /// `safety.rs`). Why, once per choice.
    pub inexact: Vec<String>,
    /// Values and conditions read from fixed data, by their text (see
    /// [`Model::reads_fixed_data`](crate::waits::model::Model::reads_fixed_data)).
    fixed_values: HashMap<String, Int>,
    fixed_conditions: HashMap<String, Bool>,
    /// Facts only runs that trap break (a residue's modulus that may be 0 is not 0), for
    /// the query to hold its counterexamples to ([`crate::solver::Query::trap_free`]).
    pub trap_free: Vec<Bool>,
    /// Divisors met while encoding expressions, each not zero (see [`Encoder::instance`]).
    no_trap: Vec<Bool>,
    /// Groups committed before straight-line points, per queue (see `summary.rs`); `None`
    /// for a queue whose commits' order is not read from their paths.
    pub commit_prefixes: HashMap<crate::waits::model::QueueId, Option<crate::waits::summary::CommitPrefix>>,
}

impl<'m> Encoder<'m> {
    /// Declares the parameters and the variables of `thread` in `query`.
    pub fn new(model: &'m Model, query: &mut Query, thread: Thread) -> Enc<Self> {
        let mut params = HashMap::new();
        let ranges = Ranges::new(model);
        for p in &model.params {
            let v = declare(query, model, Role::Param(p))?;
            // A parameter holds a value of its type; counterexamples respect the program's
            // preconditions.
            if let Some(r) = ranges.variable(p) {
                query.assume(and(&[ge(&v, &big(r.lo)), le(&v, &big(r.hi))]));
            }
            params.insert(p.id(), v);
        }
        let mut enc = Encoder {
            model,
            params,
            threads: BTreeMap::new(),
            counter: 0,
            bounds: HashMap::new(),
            guards: HashMap::new(),
            counts: HashMap::new(),
            lasts: HashMap::new(),
            bounded: Vec::new(),
            ranges,
            iteration_bounded: std::collections::BTreeSet::new(),
            deferred: Vec::new(),
            hints: Vec::new(),
            data_counts: false,
            data_bounds: HashMap::new(),
            data_points: HashMap::new(),
            ran_on_data: Vec::new(),
            data_lasts: 0,
            two_threads: false,
            per_instance: None,
            load_site: None,
            no_trap: Vec::new(),
            trap_free: Vec::new(),
            inexact: Vec::new(),
            fixed_values: HashMap::new(),
            fixed_conditions: HashMap::new(),
            prefix_points: HashMap::new(),
            commit_prefixes: HashMap::new(),
        };
        enc.threads = enc.declare_threads(query, thread)?;
        enc.assume_iteration_bounds(query);
        Ok(enc)
    }

    /// How many values read from memory the encoding has met so far.
    pub fn unknowns(&self) -> usize {
        self.counter
    }

    fn event(&self, id: EventId) -> &Event {
        self.model.event(id)
    }
}

/// Why an instance cannot be counted at: it lacks the value of a loop on its path.
fn missing_loop(at: &Instance, l: LoopId) -> Unsupported {
    let known: Vec<usize> = at.vals.keys().map(|k| k.index()).collect();
    Unsupported(format!(
        "an instance of event {} without the value of loop {} ({known:?})",
        at.event.index(),
        l.index()
    ))
}

/// Declares the variable of `role` in `query`, as an encoding error when its name is taken.
pub fn declare(query: &mut Query, model: &Model, role: Role) -> Enc<Int> {
    query.int(&role.name(model)).map_err(|e| Unsupported(e.to_string()))
}
