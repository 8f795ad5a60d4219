//! Property tests over generated programs:
//! (a) fault-free programs without async scopes give the same outputs under every schedule
//!     and thread order;
//! (b) pipelined programs with async scopes give under `Eager` exactly what their
//!     synchronous reading (async attributes stripped) gives, and under `Lazy` / `Random`
//!     either fault or give the same;
//! (c) the interpreter never panics, whatever the program.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::build::*;
use super::gen::*;
use crate::{random_inputs, run, Outcome, RunConfig, RunResult, Schedule};
use tirproof_ir::expr::Expr;
use tirproof_ir::func::PrimFunc;

fn config(schedule: Schedule, thread_order_seed: Option<u64>) -> RunConfig {
    RunConfig { schedule, thread_order_seed, fuel: 200_000 }
}

/// A block of `t` threads in three phases separated by barriers. Threads write only their
/// own elements of `C*` and `S`; they read any element of `S` only in the middle phase, in
/// which nobody writes it. `S` is initialized before the block.
fn threaded_program(threads: u8, phases: &[Vec<St>; 3]) -> PrimFunc {
    let t = i64::from(threads % 4) + 1;
    let n = t * OWN;
    let (af, ai) = (buf("Af", F32, &[16]), buf("Ai", I32, &[16]));
    let (cf, ci) = (buf("Cf", F32, &[n]), buf("Ci", I32, &[n]));
    let s = scoped("S", F32, &[n], "shared");
    let (tx, k) = (var("tx"), var("k"));
    let slot = |b: &tirproof_ir::Buffer, len, read, write| Slot { buf: b.clone(), len, read, write };
    let mut body = Vec::new();
    for (p, phase) in phases.iter().enumerate() {
        let s_slot =
            if p == 1 { slot(&s, n, Some(Mode::Any), None) } else { slot(&s, n, Some(Mode::Own), Some(Mode::Own)) };
        let slots = vec![
            slot(&af, 16, Some(Mode::Any), None),
            slot(&ai, 16, Some(Mode::Any), None),
            slot(&cf, n, Some(Mode::Own), Some(Mode::Own)),
            slot(&ci, n, Some(Mode::Own), Some(Mode::Own)),
            s_slot,
        ];
        body.push(Lower::new(true, slots, Some(tx.clone())).stmts(phase));
        if p < 2 {
            body.push(barrier());
        }
    }
    let init = for_(&k, n, store(&s, vec![ev(&k)], Expr::cast(F32, ev(&k))));
    let block = for_thread(&tx, "threadIdx.x", t, seq(body));
    func(vec![&af, &ai, &cf, &ci], vec![], alloc(&s, seq(vec![init, block])))
}

#[derive(Clone, Debug)]
struct Producer {
    queue: u8,
    depth: u8,
    offset: u8,
    value: Tm,
}

#[derive(Clone, Debug)]
struct Consumer {
    producer: u8,
    count: u8,
    offset: u8,
    dest: u8,
    value: Tm,
}

fn producer() -> impl Strategy<Value = Producer> {
    (any::<u8>(), any::<u8>(), any::<u8>(), tm()).prop_map(|(queue, depth, offset, value)| Producer {
        queue,
        depth,
        offset,
        value,
    })
}

fn consumer() -> impl Strategy<Value = Consumer> {
    (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>(), tm())
        .prop_map(|(producer, count, offset, dest, value)| Consumer { producer, count, offset, dest, value })
}

/// A software-pipeline-shaped loop: each producer commits one async store into its own
/// multi-buffered shared array per iteration; each consumer waits on a producer's queue
/// with some count and reads one of its slots; everything is waited for at the end.
fn pipeline(n: u8, producers: &[Producer], consumers: &[Consumer]) -> PrimFunc {
    let (a, c) = (buf("A", F32, &[16]), buf("C", F32, &[16]));
    let i = var("i");
    let read_a = || {
        let slots = vec![Slot { buf: a.clone(), len: 16, read: Some(Mode::Any), write: None }];
        let mut l = Lower::new(true, slots, None);
        l.vars.push(i.clone());
        l
    };
    let staging: Vec<(tirproof_ir::Buffer, i64, i64)> = producers
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let depth = i64::from(p.depth % 3) + 1;
            (scoped(&format!("B{k}"), F32, &[depth], "shared"), depth, i64::from(p.queue % 2))
        })
        .collect();
    let slot = |depth: i64, offset: u8| Expr::floormod(ev(&i) + int(i64::from(offset)), int(depth));
    let mut body = Vec::new();
    for (p, (b, depth, queue)) in producers.iter().zip(&staging) {
        let value = read_a().expr(&p.value, F32);
        body.push(commit(*queue, async_scope(store(b, vec![slot(*depth, p.offset)], value))));
    }
    for q in consumers {
        let Some((b, depth, queue)) = staging.get(usize::from(q.producer) % staging.len().max(1)) else {
            continue;
        };
        let value = ld(b, vec![slot(*depth, q.offset)]) + read_a().expr(&q.value, F32);
        let dest = Expr::floormod(ev(&i) * int(3) + int(i64::from(q.dest)), int(16));
        body.push(wait(*queue, int(i64::from(q.count % 3)), store(&c, vec![dest], value)));
    }
    let mut all = vec![for_(&i, i64::from(n % 6) + 1, seq(body))];
    all.extend((0..2).map(|q| wait(q, int(0), seq(vec![]))));
    let mut program = seq(all);
    for (b, _, _) in staging.iter().rev() {
        program = alloc(b, program);
    }
    func(vec![&a, &c], vec![], program)
}

/// Parameters of every wild type, plus a vector alias and a reinterpreting alias.
fn wild_program(body: &[St]) -> PrimFunc {
    let params: Vec<tirproof_ir::Buffer> =
        wild_types().iter().enumerate().map(|(k, t)| buf(&format!("P{k}"), *t, &[8])).collect();
    let vec_alias = alias(&params[1], "V", F32.with_lanes(4), &[2]);
    let int_view = alias(&params[0], "W", F32, &[8]);
    let mut slots: Vec<Slot> = params
        .iter()
        .chain([&vec_alias, &int_view])
        .map(|b| Slot {
            buf: b.clone(),
            len: b.const_len().unwrap_or(0),
            read: Some(Mode::Any),
            write: Some(Mode::Any),
        })
        .collect();
    slots.rotate_left(1);
    let lowered = Lower::new(false, slots, None).stmts(body);
    func(params.iter().collect(), vec![], decl(&vec_alias, decl(&int_view, lowered)))
}

/// `default` cases, or `PROPTEST_CASES` when set (for long manual runs).
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn fault_key(r: &RunResult) -> Option<(crate::FaultKind, String)> {
    r.outcome.fault().map(|f| (f.kind, f.message.clone()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), ..ProptestConfig::default() })]

    #[test]
    fn schedules_and_thread_orders_agree_without_async(
        threads in any::<u8>(),
        p0 in stmts(false),
        p1 in stmts(false),
        p2 in stmts(false),
        seed in any::<u64>(),
    ) {
        let f = threaded_program(threads, &[p0, p1, p2]);
        let ins = random_inputs(&f, seed, &BTreeMap::new()).unwrap();
        let configs = [
            config(Schedule::Lazy, None),
            config(Schedule::Eager, Some(seed)),
            config(Schedule::Random(seed), Some(seed.wrapping_add(1))),
            config(Schedule::Lazy, Some(seed.wrapping_mul(3))),
        ];
        let first = run(&f, &ins, &configs[0]).unwrap();
        prop_assert!(first.outcome == Outcome::Completed, "{}", first.outcome.fault().map(|f| f.details()).unwrap_or_default());
        for c in &configs[1..] {
            let r = run(&f, &ins, c).unwrap();
            prop_assert!(r.outcome == Outcome::Completed, "{:?}: {}", c, r.outcome.fault().map(|f| f.details()).unwrap_or_default());
            for (name, t) in &first.outputs {
                prop_assert_eq!(t.first_difference(&r.outputs[name]), None, "{} under {:?}", name, c);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), ..ProptestConfig::default() })]

    #[test]
    fn eager_is_the_synchronous_reading(
        n in any::<u8>(),
        producers in prop::collection::vec(producer(), 1..3),
        consumers in prop::collection::vec(consumer(), 1..3),
        seed in any::<u64>(),
    ) {
        let f = pipeline(n, &producers, &consumers);
        let mut sync = f.clone();
        sync.body = strip_async(&f.body);
        let ins = random_inputs(&f, seed, &BTreeMap::new()).unwrap();
        let eager = run(&f, &ins, &config(Schedule::Eager, None)).unwrap();
        let reference = run(&sync, &ins, &config(Schedule::Lazy, None)).unwrap();
        prop_assert_eq!(fault_key(&eager), fault_key(&reference));
        prop_assert_eq!(&eager.outputs, &reference.outputs);
        for schedule in [Schedule::Lazy, Schedule::Random(seed)] {
            let r = run(&f, &ins, &config(schedule, None)).unwrap();
            if r.outcome == Outcome::Completed {
                prop_assert!(eager.outcome == Outcome::Completed);
                prop_assert_eq!(&r.outputs, &eager.outputs, "{}", schedule);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(160), ..ProptestConfig::default() })]

    #[test]
    fn never_panics(body in stmts(true), seed in any::<u64>()) {
        let f = wild_program(&body);
        let ins = random_inputs(&f, seed, &BTreeMap::new()).unwrap();
        for schedule in [Schedule::Lazy, Schedule::Eager, Schedule::Random(seed)] {
            // Any outcome or interpreter error is fine; a panic fails the test.
            let _ = run(&f, &ins, &RunConfig { schedule, thread_order_seed: Some(seed), fuel: 20_000 });
        }
    }
}

#[test]
#[ignore = "prints how generated programs end, to check the generators' reach"]
fn generator_coverage() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..400 {
        let body = stmts(true).new_tree(&mut runner).unwrap().current();
        let f = wild_program(&body);
        let ins = random_inputs(&f, 1, &BTreeMap::new()).unwrap();
        let key = match run(&f, &ins, &RunConfig { fuel: 20_000, ..RunConfig::default() }) {
            Ok(r) => match r.outcome {
                Outcome::Completed => "completed".to_string(),
                Outcome::Fault(f) => format!("fault {}", f.kind),
            },
            Err(e) => format!("error {}", e.to_string().chars().take(60).collect::<String>()),
        };
        *tally.entry(key).or_default() += 1;
    }
    for (k, v) in &tally {
        println!("{v:5} {k}");
    }
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..200 {
        let ps = prop::collection::vec(producer(), 1..3).new_tree(&mut runner).unwrap().current();
        let cs = prop::collection::vec(consumer(), 1..3).new_tree(&mut runner).unwrap().current();
        let f = pipeline(5, &ps, &cs);
        let ins = random_inputs(&f, 1, &BTreeMap::new()).unwrap();
        let r = run(&f, &ins, &RunConfig::default()).unwrap();
        let key = r.outcome.fault().map_or("completed".to_string(), |f| format!("lazy fault {}", f.kind));
        *tally.entry(key).or_default() += 1;
    }
    for (k, v) in &tally {
        println!("{v:5} {k}");
    }
}
