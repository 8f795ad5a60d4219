//! The Hopper pipeline generator against the emulator: kernels from seeded byte streams, each
//! with its verdict. A safe kernel runs clean and equal to its expected sums (or products)
//! under the lazy, eager and a random schedule and a permuted thread order; a racy one faults
//! under the lazy schedule, the fault naming the queue and wait it breaks, and faults under the
//! others too. `HOPPER_GEN_SHOW=1` prints each racy kernel's lazy fault. Every class (safe, each break, with
//! and without the bulk store) must be drawn, so a clean run cannot come from a class never made.

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_fuzz::gen::{hopper_kernel, HopperBreak, HopperCase, HopperConsumer, HopperVerdict, HOPPER_OUT_PARAM};
use tirproof_machine::Schedule;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, EmuResult};
use tirproof_ptx::parse::parse;

/// Kernels the test generates.
const KERNELS: u64 = 800;

fn case_of(seed: u64) -> HopperCase {
    let mut bytes = vec![0u8; 256];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
    hopper_kernel(&mut Unstructured::new(&bytes)).unwrap_or_else(|e| panic!("seed {seed}: {e}"))
}

fn run(case: &HopperCase, schedule: Schedule, order: Option<u64>) -> EmuResult {
    let text = &case.case.text;
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let config = EmuConfig { schedule, thread_order_seed: order, ..EmuConfig::default() };
    run_kernel(&parsed.module.kernels[0], Some(&parsed.lines[0]), &case.case.args, &config)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The class of a case: its verdict without the iteration, and whether it stores in bulk.
fn class(case: &HopperCase) -> String {
    let verdict = match case.verdict {
        HopperVerdict::Safe => "safe",
        HopperVerdict::Racy(HopperBreak::SkippedMbarrierWait { .. }) => "skipped-wait",
        HopperVerdict::Racy(HopperBreak::WrongParity { .. }) => "wrong-parity",
        HopperVerdict::Racy(HopperBreak::MissingRefillBarrier { .. }) => "refill-barrier",
        HopperVerdict::Racy(HopperBreak::MissingStoreBarrier) => "store-barrier",
        HopperVerdict::Racy(HopperBreak::MissingBulkWait) => "bulk-wait",
        HopperVerdict::Racy(HopperBreak::LoosenedWgmmaWait { iter }) if iter == case.trips => "final-wgmma-wait",
        HopperVerdict::Racy(HopperBreak::LoosenedWgmmaWait { .. }) => "wgmma-wait",
        HopperVerdict::Racy(HopperBreak::MissingProxyFence) => "proxy-fence",
    };
    let consumer = match case.consumer {
        HopperConsumer::Loads => "",
        HopperConsumer::Wgmma { depth: 0 } => "+wgmma",
        HopperConsumer::Wgmma { .. } => "+wgmma1",
    };
    format!("{verdict}{}{consumer}", if case.bulk_store { "+bulk" } else { "" })
}

#[test]
fn generated_hopper_pipelines_run_as_their_verdict_says() {
    let mut classes = BTreeMap::new();
    let mut disagreements = Vec::new();
    for seed in 0..KERNELS {
        let case = case_of(seed);
        *classes.entry(class(&case)).or_insert(0u32) += 1;
        let text = &case.case.text;
        match case.verdict {
            HopperVerdict::Safe => {
                for (schedule, order) in [
                    (Schedule::Lazy, None),
                    (Schedule::Eager, None),
                    (Schedule::Random(seed), None),
                    (Schedule::Lazy, Some(seed)),
                ] {
                    let result = run(&case, schedule, order);
                    let out = result.buffers[HOPPER_OUT_PARAM].as_ref().map(|t| t.to_f64_vec());
                    if result.outcome != EmuOutcome::Completed || out.as_ref() != Some(&case.expected) {
                        disagreements.push(format!(
                            "seed {seed} (safe, {schedule:?}, order {order:?}): {:?}, out {out:?}, expected {:?}\n{text}",
                            result.outcome, case.expected
                        ));
                        break;
                    }
                }
            }
            HopperVerdict::Racy(broken) => match run(&case, Schedule::Lazy, None).outcome {
                EmuOutcome::Fault(fault) => {
                    let missing: Vec<_> =
                        broken.fault_words().iter().filter(|w| !fault.message.contains(**w)).collect();
                    if std::env::var_os("HOPPER_GEN_SHOW").is_some() {
                        eprintln!("seed {seed} {broken:?}: {fault}");
                    }
                    if !missing.is_empty() {
                        disagreements
                            .push(format!("seed {seed} ({broken:?}): fault lacks {missing:?}: {fault}\n{text}"));
                    }
                }
                EmuOutcome::Completed => disagreements.push(format!("seed {seed} ({broken:?}): ran clean\n{text}")),
            },
        }
        if let HopperVerdict::Racy(broken) = case.verdict {
            // The other schedules and a permuted order fault too (not necessarily naming the
            // same access first).
            for (schedule, order) in
                [(Schedule::Eager, None), (Schedule::Random(seed), None), (Schedule::Lazy, Some(seed))]
            {
                if run(&case, schedule, order).outcome == EmuOutcome::Completed {
                    disagreements
                        .push(format!("seed {seed} ({broken:?}, {schedule:?}, order {order:?}): ran clean\n{text}"));
                }
            }
        }
    }
    eprintln!("kernels by class: {classes:?}");
    let heads: Vec<&str> = disagreements.iter().filter_map(|d| d.lines().next()).collect();
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}\nthe first:\n{}",
        heads.len(),
        heads.join("\n"),
        disagreements[0]
    );
    for expected in [
        "safe",
        "safe+bulk",
        "safe+wgmma",
        "safe+wgmma1",
        "skipped-wait",
        "wrong-parity",
        "refill-barrier",
        "store-barrier+bulk",
        "bulk-wait+bulk",
        "skipped-wait+wgmma",
        "wgmma-wait+wgmma",
        "wgmma-wait+wgmma1",
        "final-wgmma-wait+wgmma1",
        "proxy-fence+wgmma",
    ] {
        assert!(classes.contains_key(expected), "class {expected} never drawn: {classes:?}");
    }
}

#[test]
fn the_ptx_target_runs_hopper_inputs() {
    // A first byte with the Hopper mode bits (0x1c) and a low bit set selects the generator.
    for seed in 0..40u64 {
        let mut bytes = vec![0u8; 257];
        ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
        bytes[0] = 0x1d | (bytes[0] & 0xe2);
        tirproof_fuzz::targets::ptx(&bytes);
    }
}
