//! `cargo run --release --example cse_quality`: the CSE quality report. For every family of the
//! suite (`benches/cse_suite/programs.rs`) and for `cse` and `cse-semantic`: the arithmetic operations
//! written before, the operations left after, the computations eliminated (before - left), the
//! variables introduced, and the median time per function. Then the median time of `cse` on
//! the seed's two worked examples. Prints a Markdown table.

#[path = "../benches/cse_suite/programs.rs"]
mod programs;

use std::time::{Duration, Instant};

use tirproof_ir::PrimFunc;
use tirproof_passes::cse::metrics::operations;
use tirproof_passes::cse::{eliminate, Mode};
use tirproof_reader::parse_module;

/// Runs per measurement (the median is reported).
const RUNS: usize = 201;

fn parse(text: &str) -> PrimFunc {
    parse_module(text).ok().and_then(|m| m.functions.into_iter().next()).unwrap_or_else(|| {
        eprintln!("a suite program does not parse:\n{text}");
        std::process::exit(2)
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median time of `mode` on `func`, and the result of one run.
fn measure(func: &PrimFunc, mode: Mode, runs: usize) -> (Duration, PrimFunc, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut last = (func.clone(), 0);
    for _ in 0..runs {
        let mut copy = func.clone();
        let start = Instant::now();
        let stats = eliminate(&mut copy, mode);
        times.push(start.elapsed());
        last = (copy, stats.introduced);
    }
    (median(times), last.0, last.1)
}

#[derive(Default)]
struct Row {
    functions: usize,
    before: usize,
    left: [usize; 2],
    lets: [usize; 2],
    time: [Vec<Duration>; 2],
}

fn main() {
    let suite = programs::suite();
    let modes = [Mode::Syntactic, Mode::Semantic];
    let mut rows: Vec<(&str, Row)> = programs::FAMILIES.iter().map(|f| (*f, Row::default())).collect();
    for p in &suite {
        let func = parse(&p.text);
        let Some((_, row)) = rows.iter_mut().find(|(f, _)| *f == p.family) else { continue };
        row.functions += 1;
        row.before += operations(&func);
        for (k, mode) in modes.iter().enumerate() {
            let (time, out, lets) = measure(&func, *mode, 21);
            row.left[k] += operations(&out);
            row.lets[k] += lets;
            row.time[k].push(time);
        }
    }
    println!("| family | functions | ops before | ops left: cse | ops left: cse-semantic | eliminated: cse | eliminated: cse-semantic | lets: cse | lets: cse-semantic | median time/function: cse | median time/function: cse-semantic |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut total = Row::default();
    for (family, row) in &mut rows {
        total.functions += row.functions;
        total.before += row.before;
        for k in 0..2 {
            total.left[k] += row.left[k];
            total.lets[k] += row.lets[k];
            total.time[k].extend(row.time[k].iter().copied());
        }
        print_row(family, row);
    }
    print_row("**all**", &mut total);
    println!();
    println!("| seed example | `cse` median over {RUNS} runs | `cse-semantic` median |");
    println!("|---|---:|---:|");
    for (name, text) in programs::seed_examples() {
        let func = parse(&text);
        let (syn, _, _) = measure(&func, Mode::Syntactic, RUNS);
        let (sem, _, _) = measure(&func, Mode::Semantic, RUNS);
        println!("| {name} | {:.1} µs | {:.1} µs |", micros(syn), micros(sem));
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn print_row(family: &str, row: &mut Row) {
    let t = |k: usize, row: &mut Row| {
        if row.time[k].is_empty() {
            0.0
        } else {
            micros(median(std::mem::take(&mut row.time[k])))
        }
    };
    let (t0, t1) = (t(0, row), t(1, row));
    println!(
        "| {family} | {} | {} | {} | {} | {} | {} | {} | {} | {t0:.1} µs | {t1:.1} µs |",
        row.functions,
        row.before,
        row.left[0],
        row.left[1],
        row.before as i64 - row.left[0] as i64,
        row.before as i64 - row.left[1] as i64,
        row.lets[0],
        row.lets[1]
    );
}
