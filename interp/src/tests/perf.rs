//! Throughput of the executor on a plain vector add (ignored by default; run with
//! `cargo test -p tirproof-ir --release -- --ignored --nocapture interp_throughput`).

use std::time::Instant;

use super::build::*;
use crate::{run, RunConfig};

#[test]
#[ignore = "a timing measurement; run manually in release mode"]
fn interp_throughput() {
    let n = 1_000_000i64;
    let a = buf("A", F32, &[n]);
    let b = buf("B", F32, &[n]);
    let c = buf("C", F32, &[n]);
    let i = var("i");
    let body = store(&c, vec![ev(&i)], ld(&a, vec![ev(&i)]) + ld(&b, vec![ev(&i)]));
    let f = func(vec![&a, &b, &c], vec![], for_(&i, n, body));
    let values: Vec<f64> = (0..n).map(|k| (k % 64) as f64 * 0.25).collect();
    let ins = inputs(vec![("A", tensor_f32(&values)), ("B", tensor_f32(&values)), ("C", tensor_f32(&values))], vec![]);
    let mut best = f64::MAX;
    for _ in 0..10 {
        let start = Instant::now();
        let r = run(&f, &ins, &RunConfig::default()).unwrap();
        let secs = start.elapsed().as_secs_f64();
        completed(&r);
        assert_eq!(r.stats.statements, n as u64 + 1);
        best = best.min(secs);
    }
    let rate = (n as f64 + 1.0) / best;
    println!("interp_throughput: {:.1} M statements/s ({:.1} ms per run of {n} iterations)", rate / 1e6, best * 1e3);
}

#[test]
#[ignore = "a timing measurement; run manually in release mode"]
fn interp_throughput_breakdown() {
    use crate::compile::compile;
    use crate::exec::Executor;
    let n = 1_000_000i64;
    let a = buf("A", F32, &[n]);
    let b = buf("B", F32, &[n]);
    let c = buf("C", F32, &[n]);
    let i = var("i");
    let body = store(&c, vec![ev(&i)], ld(&a, vec![ev(&i)]) + ld(&b, vec![ev(&i)]));
    let f = func(vec![&a, &b, &c], vec![], for_(&i, n, body));
    let values: Vec<f64> = (0..n).map(|k| (k % 64) as f64 * 0.25).collect();
    let ins = inputs(vec![("A", tensor_f32(&values)), ("B", tensor_f32(&values)), ("C", tensor_f32(&values))], vec![]);
    for _ in 0..10 {
        let t0 = Instant::now();
        let prog = compile(&f).unwrap();
        let t1 = Instant::now();
        let mut m = Executor::new(&prog, &RunConfig::default());
        let mut main = m.main_thread();
        let params = m.bind_inputs(&mut main, &ins).unwrap();
        let t2 = Instant::now();
        m.run_thread(&mut main, 0).unwrap();
        let t3 = Instant::now();
        let out = m.take_outputs(&params);
        let t4 = Instant::now();
        assert_eq!(out.len(), 3);
        println!(
            "compile {:?} bind {:?} execute {:?} ({:.1} M stmts/s) outputs {:?}",
            t1 - t0,
            t2 - t1,
            t3 - t2,
            n as f64 / (t3 - t2).as_secs_f64() / 1e6,
            t4 - t3
        );
    }
}
