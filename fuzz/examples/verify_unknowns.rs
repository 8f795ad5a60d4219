//! Why the verifier leaves generated async programs undecided: verifies programs of the
//! arbitrary async generator and counts the reasons of their unknowns, most frequent first
//! (`cargo run --release -p tirproof-fuzz --example verify_unknowns -- [SEED] [PROGRAMS]`),
//! each with the first program that has it; with a third number INDEX, prints that program.
//! With `LIST_UNKNOWNS` set, every undecided program is listed with its first reason; with
//! `LIST_WITNESSES`, every refutation for some memory contents (the interpreter's witnesses).

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use tirproof_fuzz::campaign::program_bytes;
use tirproof_fuzz::gen::{async_program, AsyncGenConfig};
use tirproof_fuzz::witness::{verify_func, Limits};
use tirproof_verify::waits::{Options, WaitVerdict};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let programs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    if let Some(index) = args.next().and_then(|a| a.parse::<u64>().ok()) {
        let bytes = program_bytes(seed, index);
        if let Ok((module, _)) = async_program(&mut Unstructured::new(&bytes), &AsyncGenConfig::default()) {
            print!("{}", tirproof_ir::print::print_module(&module));
        }
        return;
    }
    let mut reasons: BTreeMap<String, (u32, u64)> = BTreeMap::new();
    let (mut decided, mut undecided) = (0, 0);
    for index in 0..programs {
        let bytes = program_bytes(seed, index);
        let Ok((module, _)) = async_program(&mut Unstructured::new(&bytes), &AsyncGenConfig::default()) else {
            continue;
        };
        for func in &module.functions {
            let (report, _, _) =
                verify_func(func, &Options { tightness: false, ..Options::default() }, Limits::default());
            // A refutation decides the function, whatever else is left open.
            if !report.findings.is_empty() || report.waits.iter().any(|w| w.verdict.is_refuted()) {
                decided += 1;
                if std::env::var_os("LIST_WITNESSES").is_some() {
                    for f in report.findings.iter().filter(|f| f.witness.is_some()) {
                        println!("{index}\tline {}: {}", f.line, f.message);
                    }
                }
                continue;
            }
            let mut why: Vec<String> = report.unknown.iter().map(ToString::to_string).collect();
            why.extend(report.waits.iter().filter_map(|w| match &w.verdict {
                WaitVerdict::Unknown { reason } => Some(reason.to_string()),
                _ => None,
            }));
            if why.is_empty() {
                decided += 1;
                continue;
            }
            undecided += 1;
            if std::env::var_os("LIST_UNKNOWNS").is_some() {
                println!("{index}\t{}", why[0]);
            }
            let mut first: String = why[0].chars().take(90).collect();
            // The same reason with other values is one reason.
            first.retain(|c| !c.is_ascii_digit());
            reasons.entry(first).or_insert((0, index)).0 += 1;
        }
    }
    println!("{decided} decided, {undecided} undecided");
    let mut sorted: Vec<_> = reasons.into_iter().collect();
    sorted.sort_by_key(|(_, (count, _))| std::cmp::Reverse(*count));
    for (reason, (count, first)) in sorted.iter().take(25) {
        println!("{count:5}  {reason}  (program {first})");
    }
}
