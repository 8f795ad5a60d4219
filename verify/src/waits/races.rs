//! Races between threads and between blocks: two accesses to one element by different threads,
//! at least one a write, that nothing orders.
//!
//! Within a block, a barrier orders what each thread did before it against what every thread
//! does after it: two accesses of different threads of one block are ordered when an instance
//! of a barrier statement comes after the first and before the second. Nothing orders the
//! blocks of one kernel, so two accesses of different blocks to one element of global memory
//! race whatever the barriers. Shared memory is one copy per block (threads of different
//! blocks never meet there); local memory is one copy per thread.
//!
//! Within a block, a pair with an asynchronous store is left to the queue's own cross-thread
//! obligations (`safety`), which also need the writer's wait before the barrier, on shared and
//! global memory alike (a barrier orders all memory of a block). Across blocks, such a pair on
//! global memory is a race here like any other: nothing orders blocks, waits included.
//!
//! One query, one obligation per pair, checked one pair at a time; the first race found is
//! reported.

use z3::ast::Bool;

use super::checker::{access_of, is_write, Checker, Completion};
use super::encode::{Enc, Encoder, Instance, LoopValues};
use super::fold::{and, eq, not, or};
use super::model::{storage, EventId, EventKind, LoopId, Model};
use super::names::{loop_values, shown, thread_values, InstanceRole, Shown, Thread};
use super::obligation::{Encoded, Obligation, OnVacuous, Refutation};
use super::report::Subject;
use crate::solver::{Assignment, Counterexample, Query};

/// Where the memory of an access lives, as far as threads are concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Sharing {
    /// One copy per thread: no races.
    Thread,
    /// One copy per block.
    Block,
    /// One copy for the kernel.
    Kernel,
}

impl Sharing {
    pub(super) fn of_scope(scope: &str) -> Self {
        if scope.starts_with("local") || scope == "wmma.accumulator" {
            Sharing::Thread
        } else if scope.starts_with("shared") {
            Sharing::Block
        } else {
            Sharing::Kernel
        }
    }
}

/// Whether two instances are in different threads, and whether in one block.
pub(super) struct ThreadRelation {
    pub different_thread: Bool,
    pub same_block: Bool,
}

/// A pair of accesses that may race, and which threads it is checked between.
#[derive(Clone, Copy)]
pub struct RacePair {
    first: EventId,
    second: EventId,
    sharing: Sharing,
    between: Between,
}

/// Which threads a race pair is checked between here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Between {
    /// Any two threads; within a block a barrier between the accesses orders them.
    AnyThreads,
    /// Threads of different blocks only: the pair has an asynchronous store, whose order
    /// within a block the queue's cross-thread obligations decide.
    OtherBlocks,
}

/// The race obligations of a function: one per pair of accesses to one storage that two
/// threads can both reach, at least one a write (the first race found is reported).
pub struct Races;

impl Obligation for Races {
    type Item = RacePair;

    fn name(&self) -> String {
        "races".into()
    }

    fn label(&self) -> String {
        "races".into()
    }

    fn subject(&self) -> Option<Subject> {
        Some(Subject::Races)
    }

    fn on_vacuous(&self) -> OnVacuous {
        OnVacuous::Undecided
    }

    fn items(&self, checker: &Checker) -> Vec<RacePair> {
        // Without thread bindings there is one thread.
        if checker.model.thread_loops().next().is_none() {
            return Vec::new();
        }
        race_pairs(checker)
    }

    fn encode(&self, checker: &mut Checker, query: &mut Query, pairs: &[RacePair]) -> Enc<Encoded> {
        encode_races(checker, query, pairs)
    }

    fn refuted(
        &self,
        checker: &Checker,
        pairs: &[RacePair],
        k: usize,
        _which: usize,
        found: &Counterexample,
    ) -> Refutation {
        race_found(checker, k, pairs[k], found.values())
    }
}

/// Pairs of accesses to one storage that two threads can both reach, at least one a write.
fn race_pairs(checker: &Checker) -> Vec<RacePair> {
    let m = checker.model;
    let accesses: Vec<EventId> = m.events_by_id().filter(|(_, e)| access_of(e).is_some()).map(|(id, _)| id).collect();
    let mut pairs = Vec::new();
    for (x, &a) in accesses.iter().enumerate() {
        for &b in &accesses[x..] {
            let (ea, eb) = (m.event(a), m.event(b));
            let (Some(aa), Some(ab)) = (access_of(ea), access_of(eb)) else { continue };
            if storage(&aa.buffer) != storage(&ab.buffer) || !(is_write(ea) || is_write(eb)) {
                continue;
            }
            let sharing = Sharing::of_scope(aa.buffer.scope());
            let asynchronous = |k: &EventKind| matches!(k, EventKind::AsyncStore { .. });
            let any_async = asynchronous(&ea.kind) || asynchronous(&eb.kind);
            // The queue's cross-thread obligations cover async stores within a block.
            let between = match (sharing, any_async) {
                (Sharing::Thread, _) | (Sharing::Block, true) => continue,
                (Sharing::Kernel, true) => Between::OtherBlocks,
                (_, false) => Between::AnyThreads,
            };
            pairs.push(RacePair { first: a, second: b, sharing, between });
        }
    }
    pairs
}

/// One obligation per pair: the two instances, in two different threads, do not touch one
/// element unordered.
fn encode_races(checker: &mut Checker, query: &mut Query, pairs: &[RacePair]) -> Enc<Encoded> {
    let mut enc = Encoder::new(checker.model, query, Thread::This)?;
    let first_thread = enc.threads.clone();
    let second_thread = enc.declare_threads(query, Thread::Other)?;
    let mut obligations = Vec::with_capacity(pairs.len());
    for (k, pair) in pairs.iter().enumerate() {
        let choices = enc.inexact.len();
        let ThreadRelation { different_thread, same_block } =
            thread_relation(checker.model, (pair.first, &first_thread), (pair.second, &second_thread));
        enc.threads = first_thread.clone();
        let (a, a_runs) = enc.instance(query, pair.first, InstanceRole::RaceFirst(k))?;
        let a_address = checker.address(&mut enc, query, InstanceRole::RaceFirst(k), &a)?;
        enc.threads = second_thread.clone();
        let (b, b_runs) = enc.instance(query, pair.second, InstanceRole::RaceSecond(k))?;
        let b_address = checker.address(&mut enc, query, InstanceRole::RaceSecond(k), &b)?;
        let ordered = match pair.between {
            Between::AnyThreads => {
                let forward = barrier_between(checker, &mut enc, (&a, &first_thread), (&b, &second_thread))?;
                let backward = barrier_between(checker, &mut enc, (&b, &second_thread), (&a, &first_thread))?;
                and(&[same_block.clone(), or(&[forward, backward])])
            }
            Between::OtherBlocks => same_block.clone(),
        };
        let mut race = vec![a_runs, b_runs, different_thread.clone(), eq(&a_address, &b_address), not(&ordered)];
        if pair.sharing == Sharing::Block {
            race.push(same_block.clone());
        }
        // A proof covers every choice made for data per thread; a counterexample may rest on
        // one no memory contents make.
        let completion = match enc.inexact.get(choices..).and_then(|new| new.first()) {
            Some(why) => Completion::Inexact(why.clone()),
            None => Completion::Exact,
        };
        obligations.push(vec![(query.require(not(&and(&race))), completion)]);
    }
    enc.threads = first_thread;
    checker.assume_bounds(&mut enc, query);
    Ok(obligations)
}

/// How the threads of two events' instances relate. Events of different launches are in
/// different kernels, which run one after the other: never different threads of one launch.
/// Within a launch every binding variable of the launch tells threads apart, whether or not
/// the events are inside that binding (code at block level runs in every thread).
pub(super) fn thread_relation(
    m: &Model,
    (a, a_thread): (EventId, &LoopValues),
    (b, b_thread): (EventId, &LoopValues),
) -> ThreadRelation {
    let Some(root) = m.launch_of(m.event(a)).filter(|_| m.same_launch(a, b)) else {
        return ThreadRelation { different_thread: Bool::from_bool(false), same_block: Bool::from_bool(false) };
    };
    let around_b = m.loops_of(m.event(b));
    let host: Vec<LoopId> =
        m.loops_of(m.event(a)).into_iter().filter(|l| m.loop_info(*l).host && around_b.contains(l)).collect();
    let threads = m.launch_threads(root);
    // Different iterations of a host loop are different launches, which run one after the
    // other: only threads of one launch can race.
    let same_launch = host.iter().map(|l| eq(&a_thread[l], &b_thread[l]));
    let differ = or(&threads.iter().map(|l| not(&eq(&a_thread[l], &b_thread[l]))).collect::<Vec<_>>());
    let different_thread = and(&same_launch.chain(std::iter::once(differ)).collect::<Vec<_>>());
    let same_block = and(&threads
        .iter()
        .filter(|l| m.loop_info(**l).block)
        .map(|l| eq(&a_thread[l], &b_thread[l]))
        .collect::<Vec<_>>());
    ThreadRelation { different_thread, same_block }
}

/// Some barrier instance comes after `earlier` (of its thread) and before `later` (of
/// its thread): the last instance of a barrier statement before `later` exists and comes
/// after `earlier`.
fn barrier_between(
    checker: &Checker,
    enc: &mut Encoder,
    (earlier, earlier_thread): (&Instance, &LoopValues),
    (later, later_thread): (&Instance, &LoopValues),
) -> Enc<Bool> {
    let mut any = vec![Bool::from_bool(false)];
    for barrier in checker.events_where(|k| matches!(k, EventKind::Barrier)) {
        enc.threads = later_thread.clone();
        let (exists, last) = enc.last_before(barrier, later)?;
        enc.threads = earlier_thread.clone();
        any.push(and(&[exists, enc.before(earlier, &last)]));
    }
    enc.threads = later_thread.clone();
    Ok(or(&any))
}

/// The race of pair `k` in a counterexample's values.
fn race_found(checker: &Checker, k: usize, pair: RacePair, values: &Assignment) -> Refutation {
    let m = checker.model;
    let (first, second) = (InstanceRole::RaceFirst(k), InstanceRole::RaceSecond(k));
    let at = |role: InstanceRole, event: EventId| {
        loop_values(m, values, role, m.event(event)).map_or(String::new(), |v| format!(" at {v}"))
    };
    let why = match pair.sharing {
        Sharing::Kernel => "no barrier orders them (and nothing orders different blocks)",
        _ => "no barrier separates them",
    };
    let by_every_thread = pair.first == pair.second
        && m.loops_of(m.event(pair.first)).iter().all(|l| {
            let info = m.loop_info(*l);
            !info.per_thread || info.block || info.host
        });
    let why = if by_every_thread {
        format!("{why}: the statement is at block level, so every thread of the block runs it (one value stored by every thread is a redundant store, different values a race)")
    } else {
        why.to_string()
    };
    let reason = format!(
        "race: {} (line {}){} by thread {} and {} (line {}){} by thread {} touch the same element; {why}",
        m.event(pair.first).text,
        m.event(pair.first).span.line,
        at(first, pair.first),
        thread_values(m, values, Thread::This),
        m.event(pair.second).text,
        m.event(pair.second).span.line,
        at(second, pair.second),
        thread_values(m, values, Thread::Other),
    );
    let instances = [(first, pair.first), (second, pair.second)];
    let threads = [Thread::This, Thread::Other];
    let values = shown(m, values, Shown { instances: &instances, threads: &threads, params: true });
    Refutation { reason, values }
}
