//! Where the oracle chain spends its time: runs programs of one campaign seed through the
//! chain and prints, per oracle, the total and the slowest programs
//! (`cargo run --release -p tirproof-fuzz --example chain_profile -- [SEED] [PROGRAMS]
//! [ORACLE]`; with ORACLE, only that oracle runs after the pass). With PROGRAMS 0 and a third
//! number INDEX, it prints program INDEX of the seed instead. The last lines give the rate per
//! kind of program (constant or symbolic extents, nested pipelines), and the solver checks
//! (how many, and the time inside Z3's `check`, which the oracles' times include).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tirproof_fuzz::campaign::program;
use tirproof_fuzz::gen::GenConfig;
use tirproof_fuzz::oracle::{Chain, ChainConfig};
use tirproof_verify::solver::{checks_on_this_thread, CheckCount};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let programs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let third = args.next();
    let dump: Option<u64> = third.as_deref().filter(|_| programs == 0).and_then(|a| a.parse().ok());
    let only: Option<tirproof_fuzz::oracle::OracleName> =
        third.as_deref().filter(|_| programs > 0).and_then(|a| a.parse().ok());
    let gen = GenConfig::default();
    if let Some(index) = dump {
        print!("{}", tirproof_ir::print::print_module(&program(seed, index, &gen)));
        return;
    }
    let mut totals: BTreeMap<String, Duration> = BTreeMap::new();
    let mut slowest: Vec<(Duration, u64, String)> = Vec::new();
    let mut kinds: BTreeMap<&str, (u32, Duration)> = BTreeMap::new();
    let start = Instant::now();
    let checks_before = checks_on_this_thread();
    for index in 0..programs {
        let t = Instant::now();
        let input = program(seed, index, &gen);
        let generate = t.elapsed();
        *totals.entry("generate".into()).or_default() += generate;
        let base = only.map_or_else(ChainConfig::default, ChainConfig::only);
        let config = ChainConfig { seed: index, ..base };
        let result = Chain { config: &config }.run(&input);
        let entry = kinds.entry(kind_of(&input)).or_default();
        entry.0 += 1;
        entry.1 += t.elapsed();
        for (oracle, outcome, time) in &result.outcomes {
            *totals.entry(oracle.to_string()).or_default() += *time;
            slowest.push((*time, index, format!("{oracle} {}", outcome_word(outcome))));
        }
        if let Some(f) = result.failure() {
            println!("program {index}: {}", f.message.lines().next().unwrap_or(""));
        }
    }
    let elapsed = start.elapsed();
    let checks = checks_on_this_thread().since(checks_before);
    println!("{programs} programs in {elapsed:.2?}: {:.1} programs/s", programs as f64 / elapsed.as_secs_f64());
    for (name, total) in &totals {
        println!("  {name:<12} {total:>10.2?}  ({:.1}%)", 100.0 * total.as_secs_f64() / elapsed.as_secs_f64());
    }
    print_percentiles(&slowest);
    print_checks(checks, elapsed);
    for (kind, (count, total)) in &kinds {
        let rate = f64::from(*count) / total.as_secs_f64();
        println!("  {kind:<18} {count:>5} programs, {:>9.2?} each on average: {rate:.1}/s", *total / *count);
    }
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    for (time, index, what) in slowest.iter().take(15) {
        println!("  slow: program {index:>4} {what:<24} {time:.2?}");
    }
}

/// What makes a program slow to verify: an extent that is a parameter (the pass emits the
/// general loop and a specialization per shorter extent), or a pipeline inside another.
fn kind_of(input: &tirproof_ir::IRModule) -> &'static str {
    let symbolic = input.functions.iter().any(|f| f.params.iter().any(|p| p.buffer.is_none()));
    let text = tirproof_ir::print::print_module(input);
    let pipelines = text.matches("software_pipeline_stage").count();
    match (symbolic, pipelines > 1) {
        (true, true) => "symbolic, nested",
        (true, false) => "symbolic extent",
        (false, true) => "nested pipelines",
        (false, false) => "constant extents",
    }
}

fn outcome_word(outcome: &tirproof_fuzz::oracle::Outcome) -> &'static str {
    match outcome {
        tirproof_fuzz::oracle::Outcome::Pass => "pass",
        tirproof_fuzz::oracle::Outcome::Skip(_) => "skip",
        tirproof_fuzz::oracle::Outcome::Fail(_) => "FAIL",
    }
}

/// The solver checks of the run: how many, their time in Z3 and its share of `elapsed`.
fn print_checks(checks: CheckCount, elapsed: Duration) {
    let share = 100.0 * checks.in_solver.as_secs_f64() / elapsed.as_secs_f64();
    let each = checks.in_solver.checked_div(u32::try_from(checks.checks).unwrap_or(u32::MAX)).unwrap_or_default();
    println!("  solver checks {:>6}, {:>9.2?} in Z3 ({share:.1}%), {each:.2?} each", checks.checks, checks.in_solver);
}

/// The median and 90th percentile of each oracle's time per program.
fn print_percentiles(times: &[(Duration, u64, String)]) {
    let mut by_oracle: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    for (time, _, what) in times {
        by_oracle.entry(what.split(' ').next().unwrap_or("")).or_default().push(*time);
    }
    for (oracle, mut times) in by_oracle {
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!("  {oracle:<12} median {:>9.2?}  p90 {:>9.2?}", at(0.5), at(0.9));
    }
}
