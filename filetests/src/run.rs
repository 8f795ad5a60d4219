//! The `run` kind: execute the program with the reference interpreter and compare with
//! `# run:` expectations. The program must also round-trip through the printer.
//!
//! ```text
//! # run: lazy -> ok
//! # run: eager vs rfc_a_input.py -> ok
//! # run: lazy n=3 A=arange -> C=[1, 2, 3]
//! # run: lazy -> fault: line 12: read of B[1] (element 1) while an async write ... at i = 1
//! # run: lazy vs original.py -> mismatch: C[3] differs: ...
//! ```
//!
//! Before `->`: the schedule, optionally `vs FILE` (a reference program, relative to the case)
//! and `NAME=VALUE` inputs: integers or floats for scalar parameters, `arange`, `zeros` or
//! `ones` for buffers, `seed=N` for the random inputs of everything else, `order=N` to permute
//! the order of threads between barriers, `fuel=N` for the statement budget. After `->`: `ok`, a
//! fault, a mismatch, or the values of output buffers (`NAME=[...]`, several separated by
//! ` ; `). `BLESS=1` rewrites everything after `->` with what the interpreter finds.

use std::collections::BTreeMap;
use std::path::Path;

use tirproof_interp::{random_inputs, run, Inputs, Outcome, RunConfig, ScalarValue, Schedule, Tensor};
use tirproof_ir::{IRModule, PrimFunc};
use tirproof_verify::waits::Tally;

use super::{Case, Verdict};
use crate::compare::compare;

/// One `# run:` line, split.
struct RunSpec {
    schedule: Schedule,
    reference: Option<String>,
    scalars: BTreeMap<String, ScalarValue>,
    fills: BTreeMap<String, String>,
    seed: u64,
    thread_order: Option<u64>,
    fuel: Option<u64>,
    expect: String,
}

fn parse_spec(line: &str) -> Result<RunSpec, String> {
    let (spec, expect) = line.split_once("->").ok_or_else(|| format!("`# run: {line}` has no `->`"))?;
    let mut words = spec.split_whitespace();
    let schedule: Schedule =
        words.next().ok_or("`# run:` needs a schedule")?.parse().map_err(|e| format!("`# run: {line}`: {e}"))?;
    let mut run = RunSpec {
        schedule,
        reference: None,
        scalars: BTreeMap::new(),
        fills: BTreeMap::new(),
        seed: 0,
        thread_order: None,
        fuel: None,
        expect: expect.trim().to_string(),
    };
    while let Some(word) = words.next() {
        if word == "vs" {
            run.reference = Some(words.next().ok_or("`vs` needs a file")?.to_string());
            continue;
        }
        let (name, value) = word.split_once('=').ok_or_else(|| format!("`{word}` is not NAME=VALUE"))?;
        match value {
            "arange" | "zeros" | "ones" => {
                run.fills.insert(name.to_string(), value.to_string());
            }
            _ if name == "seed" => run.seed = value.parse().map_err(|_| format!("bad seed `{value}`"))?,
            _ if name == "order" => {
                run.thread_order = Some(value.parse().map_err(|_| format!("bad thread order `{value}`"))?)
            }
            _ if name == "fuel" => run.fuel = Some(value.parse().map_err(|_| format!("bad fuel `{value}`"))?),
            _ => {
                let v = match value.parse::<i64>() {
                    Ok(i) => ScalarValue::Int(i),
                    Err(_) => ScalarValue::Float(value.parse().map_err(|_| format!("bad value `{word}`"))?),
                };
                run.scalars.insert(name.to_string(), v);
            }
        }
    }
    Ok(run)
}

pub(super) fn run_run(case: &Case, bless: bool) -> Verdict {
    let module = match super::text::load_module(case) {
        Ok(m) => m,
        Err(v) => return v,
    };
    // Every program a case runs must also survive the printer: print, re-parse, compare.
    if let Err(v) = super::text::round_trip(&module) {
        return v;
    }
    let Some(func) = module.functions.first() else { return Verdict::Fail("the module has no function".into()) };
    if case.runs.is_empty() {
        return Verdict::Fail("a `run` case needs at least one `# run:` line".into());
    }
    let mut actual_lines = Vec::new();
    let mut failures = Vec::new();
    for line in &case.runs {
        let spec = match parse_spec(line) {
            Ok(s) => s,
            Err(e) => return Verdict::Fail(e),
        };
        let actual = match outcome(case, func, &spec) {
            Ok(a) => a,
            Err(e) => return Verdict::Fail(e),
        };
        if actual != spec.expect {
            failures.push(format!("`# run: {line}`\n    actual: {actual}"));
        }
        let (head, _) = line.split_once("->").unwrap_or((line, ""));
        actual_lines.push(format!("{} -> {actual}", head.trim_end()));
    }
    if failures.is_empty() {
        return match wait_summary(&module) {
            Some(summary) => Verdict::Proved(summary),
            None => Verdict::Pass,
        };
    }
    if bless {
        let mut lines = actual_lines.into_iter();
        let header: Vec<String> = case
            .header
            .iter()
            .map(|l| match super::directive(l) {
                Some(("run", _)) => format!("# run: {}", lines.next().unwrap_or_default()),
                _ => l.clone(),
            })
            .collect();
        return case.rewrite(&header, case.body());
    }
    Verdict::Fail(format!("run expectations differ (BLESS=1 to accept):\n{}", failures.join("\n")))
}

fn outcome(case: &Case, func: &PrimFunc, spec: &RunSpec) -> Result<String, String> {
    let inputs = inputs_for(func, spec)?;
    let defaults = RunConfig::default();
    let config = RunConfig {
        schedule: spec.schedule,
        thread_order_seed: spec.thread_order,
        fuel: spec.fuel.unwrap_or(defaults.fuel),
    };
    if let Some(reference) = &spec.reference {
        let original = load_reference(case, reference, &func.name)?;
        let cmp = compare(&original, func, &inputs, &config).map_err(|e| e.to_string())?;
        return Ok(cmp.mismatch().map_or_else(|| "ok".to_string(), |m| format!("mismatch: {m}")));
    }
    let result = run(func, &inputs, &config).map_err(|e| e.to_string())?;
    if let Outcome::Fault(fault) = &result.outcome {
        return Ok(format!("fault: {fault}"));
    }
    let wanted: Vec<&str> = spec
        .expect
        .split(" ; ")
        .filter_map(|part| part.split_once("=[").map(|(name, _)| name.trim()))
        .filter(|name| result.outputs.contains_key(*name))
        .collect();
    if wanted.is_empty() {
        return Ok("ok".to_string());
    }
    Ok(wanted
        .iter()
        .map(|name| format!("{name}={}", crate::compare::show_tensor(&result.outputs[*name])))
        .collect::<Vec<_>>()
        .join(" ; "))
}

fn inputs_for(func: &PrimFunc, spec: &RunSpec) -> Result<Inputs, String> {
    let mut inputs = random_inputs(func, spec.seed, &spec.scalars).map_err(|e| e.to_string())?;
    for (name, fill) in &spec.fills {
        let slot = inputs.buffers.get_mut(name).ok_or_else(|| format!("no buffer parameter `{name}`"))?;
        let values: Vec<f64> = (0..slot.len())
            .map(|i| match fill.as_str() {
                "arange" => i as f64,
                "ones" => 1.0,
                _ => 0.0,
            })
            .collect();
        *slot = if slot.dtype.is_float() {
            Tensor::from_f64(slot.dtype, slot.shape.clone(), &values)
        } else {
            Tensor::from_i64(slot.dtype, slot.shape.clone(), &values.iter().map(|v| *v as i64).collect::<Vec<_>>())
        }
        .map_err(|e| e.to_string())?;
    }
    Ok(inputs)
}

fn load_reference(case: &Case, file: &str, name: &str) -> Result<PrimFunc, String> {
    let path = case.path.parent().unwrap_or(Path::new(".")).join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let module: IRModule = tirproof_reader::parse_module(&text).map_err(|d| format!("{}: {d}", path.display()))?;
    module.get(name).or(module.functions.first()).cloned().ok_or_else(|| format!("{} has no function", path.display()))
}

/// What the verifier says about a program's waits, when it has any (for the main job's
/// report; the verifier's agreement with these runs is tested on its own).
fn wait_summary(module: &IRModule) -> Option<Tally> {
    use tirproof_verify::waits::{verify_func, Options};
    let mut tally = Tally::default();
    for func in &module.functions {
        tally.add(&Tally::of(&verify_func(func, &Options::default()).0));
    }
    (!tally.is_empty()).then_some(tally)
}
