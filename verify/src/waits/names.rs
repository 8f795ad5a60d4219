//! The names of the variables the wait verifier declares in its queries.
//!
//! Every variable plays one [`Role`], and the role builds its name: the encoders declare
//! variables by role, and the reports pick the values they show out of a counterexample by
//! role too ([`shown`], [`loop_values`]), rather than by matching prefixes of names.
//!
//! Invariant: different roles in one query have different names, parameters aside (a
//! parameter keeps the name it has in the program, which is what a reader of the
//! counterexample knows it by; the encoders' names all carry an instance, thread, lane, slack
//! or memory mark).

use std::fmt;

use tirproof_ir::Var;

use super::model::{Event, EventId, LoopId, Model};
use super::safety::PairIndex;
use crate::solver::Assignment;

/// Whose instance of an event a variable describes; shown as the prefix of the instance's
/// variables (`s3` for store event 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstanceRole {
    /// The store of a queue's same-thread (store, use) pairs.
    Store(EventId),
    /// The use of a queue's same-thread pairs.
    Use(EventId),
    /// The writer thread's store of a cross-thread pair.
    CrossStore(PairIndex),
    /// The reader thread's access of a cross-thread pair.
    CrossUse(PairIndex),
    /// The access that comes first in a data-flow pair.
    Earlier(EventId),
    /// The access that comes second in a data-flow pair.
    Later(EventId),
    /// The first access of a pair of threads that may race.
    RaceFirst(usize),
    /// The second access of a pair of threads that may race.
    RaceSecond(usize),
    /// The wait whose count may be negative.
    Wait,
    /// An instance of a wait, earlier than its last, that may complete a group (see
    /// [`Completion`](super::checker::Completion)).
    EarlierWait(EventId),
    /// The end of the function.
    End,
    /// The k-th token-making call of a query about tokens made before any commit.
    Token(usize),
}

impl fmt::Display for InstanceRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceRole::Store(e) => write!(f, "s{}", e.index()),
            InstanceRole::Use(e) => write!(f, "u{}", e.index()),
            InstanceRole::CrossStore(k) => write!(f, "xs{}", k.index()),
            InstanceRole::CrossUse(k) => write!(f, "xu{}", k.index()),
            InstanceRole::Earlier(e) => write!(f, "a{}", e.index()),
            InstanceRole::Later(e) => write!(f, "b{}", e.index()),
            InstanceRole::RaceFirst(k) => write!(f, "ra{k}"),
            InstanceRole::RaceSecond(k) => write!(f, "rb{k}"),
            InstanceRole::Wait => f.write_str("w"),
            InstanceRole::EarlierWait(e) => write!(f, "ew{}", e.index()),
            InstanceRole::End => f.write_str("end"),
            InstanceRole::Token(k) => write!(f, "t{k}"),
        }
    }
}

/// Which thread the thread and block variables are those of: every query is about one thread;
/// cross-thread obligations relate it to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Thread {
    /// The thread of the query (in cross-thread obligations, the writer).
    This,
    /// Another thread: the reader of a cross-thread obligation.
    Other,
}

impl Thread {
    fn prefix(self) -> &'static str {
        match self {
            Thread::This => "thread_",
            Thread::Other => "reader_",
        }
    }
}

/// The lane of an access a lane variable chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    /// A lane of the ramp indexing dimension `d`.
    Index(usize),
    /// A lane of a vector element.
    Element,
}

/// What a variable of a wait query stands for.
#[derive(Clone, Copy, Debug)]
pub enum Role<'a> {
    /// A scalar parameter of the function, free in every query.
    Param(&'a Var),
    /// The value of a serial loop in an instance: `s3_i_0` (loop `i`, loop id 0).
    Iteration { instance: InstanceRole, loop_id: LoopId },
    /// The value of a thread or block binding for one thread: `thread_tx_1`.
    Thread { thread: Thread, loop_id: LoopId },
    /// The lane an instance's access touches: `lane_s3_0`, `lane_s3_elem`.
    Lane { instance: InstanceRole, lane: Lane },
    /// How much a wait's count is loosened by: `slack_5`.
    Slack(EventId),
    /// The n-th value a query reads from memory: `loaded_2`.
    Loaded(usize),
    /// The n-th condition a query reads from memory: `cond_2`.
    Condition(usize),
}

impl Role<'_> {
    /// The name of the variable in a query about `model`'s function.
    pub fn name(&self, model: &Model) -> String {
        let var = |l: LoopId| model.loop_info(l).var.name().to_owned();
        match self {
            // SMT-LIB symbols cannot hold `|` or `\`.
            Role::Param(p) => p.name().replace(['|', '\\'], "_"),
            Role::Iteration { instance, loop_id } => format!("{instance}_{}_{}", var(*loop_id), loop_id.index()),
            Role::Thread { thread, loop_id } => format!("{}{}_{}", thread.prefix(), var(*loop_id), loop_id.index()),
            Role::Lane { instance, lane: Lane::Index(d) } => format!("lane_{instance}_{d}"),
            Role::Lane { instance, lane: Lane::Element } => format!("lane_{instance}_elem"),
            Role::Slack(w) => format!("slack_{}", w.index()),
            Role::Loaded(n) => format!("loaded_{n}"),
            Role::Condition(n) => format!("cond_{n}"),
        }
    }
}

/// Which variables a report shows of a counterexample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    /// Instances whose serial loop values are shown, with their events.
    pub instances: &'a [(InstanceRole, EventId)],
    /// Threads whose thread and block variables are shown.
    pub threads: &'a [Thread],
    /// Whether the parameters are shown.
    pub params: bool,
}

/// The entries of `values` that `shown` selects, named as the source names them: a loop
/// variable by the line of the instance (`i at line 12`), a thread variable by its name (and
/// `of the other thread` for the second thread of an obligation), a parameter by its name.
pub fn shown(model: &Model, values: &Assignment, shown: Shown) -> Assignment {
    let mut names: Vec<(String, String)> = Vec::new();
    for &(instance, event) in shown.instances {
        let event = model.event(event);
        names.extend(model.serial_loops_of(event).into_iter().map(|l| {
            let source = format!("{} at line {}", model.loop_info(l).var.name(), event.span.line);
            (iteration(instance, l).name(model), source)
        }));
    }
    for &thread in shown.threads {
        names.extend(
            model
                .thread_loops()
                .map(|loop_id| (Role::Thread { thread, loop_id }.name(model), thread_name(model, thread, loop_id))),
        );
    }
    if shown.params {
        names.extend(model.params.iter().map(|p| (Role::Param(p).name(model), p.name().to_owned())));
    }
    let mut out = Assignment::new();
    for (internal, source) in names {
        // Two instances on one line share a name: the first is shown.
        if let (Some(value), None) = (values.get(&internal), out.get(&source)) {
            out.push(source, value);
        }
    }
    out
}

/// A thread or block variable as the source names it, for `thread`.
fn thread_name(model: &Model, thread: Thread, loop_id: LoopId) -> String {
    let var = model.loop_info(loop_id).var.name();
    match thread {
        Thread::This => var.to_owned(),
        Thread::Other => format!("{var} of the other thread"),
    }
}

/// `i = 1, j = 0`: the serial loop values of `instance` (an instance of `event`) in `values`,
/// by loop variable; `None` when `values` has none.
pub fn loop_values(model: &Model, values: &Assignment, instance: InstanceRole, event: &Event) -> Option<String> {
    let parts: Vec<String> = model
        .serial_loops_of(event)
        .into_iter()
        .filter_map(|l| {
            let value = values.get(&iteration(instance, l).name(model))?;
            Some(format!("{} = {value}", model.loop_info(l).var.name()))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// `tx = 0, ty = 1`: the values of `thread`'s thread and block variables in `values`, by
/// variable.
pub fn thread_values(model: &Model, values: &Assignment, thread: Thread) -> String {
    model
        .thread_loops()
        .filter_map(|loop_id| {
            let value = values.get(&Role::Thread { thread, loop_id }.name(model))?;
            Some(format!("{} = {value}", model.loop_info(loop_id).var.name()))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn iteration(instance: InstanceRole, loop_id: LoopId) -> Role<'static> {
    Role::Iteration { instance, loop_id }
}
