//! Prints histograms of what the generators produce from random bytes, to check that the
//! proptests explore every pattern (`cargo run --release -p tirproof-fuzz --example gen_stats`):
//! the pipeline generator's shapes and patterns (and any expected pattern it never reached),
//! how many programs are irregular (the pass may refuse them), and the defects of the
//! invalid-annotation generator.

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use tirproof_fuzz::gen::{expected_patterns, invalid_annotation_program, pipeline_program, GenConfig};

const PROGRAMS: usize = 2000;

/// Deterministic pseudo-random bytes (xorshift), different for every call.
struct Bytes(u64);

impl Bytes {
    fn next(&mut self, len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                (self.0 >> 24) as u8
            })
            .collect()
    }
}

fn main() {
    let mut bytes = Bytes(0x2545_f491_4f6c_dd1d);
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    let mut bump = |k: String| *histogram.entry(k).or_default() += 1;
    for _ in 0..PROGRAMS {
        let data = bytes.next(192);
        let Ok((_, shape)) = pipeline_program(&mut Unstructured::new(&data), &GenConfig::default()) else { continue };
        bump(format!("max stage {}", shape.stages.iter().max().unwrap_or(&0)));
        bump(format!("async stages {}", shape.async_stages.len()));
        bump(format!("extent {:?}", shape.extent));
        bump(format!("lanes {}", shape.lanes));
        bump(format!("threads {}", shape.threads));
        bump(format!("may be refused {}", shape.may_be_refused()));
        for pattern in shape.patterns() {
            bump(format!("pattern {pattern}"));
        }
    }
    for _ in 0..PROGRAMS {
        let data = bytes.next(192);
        if let Ok((_, defect)) = invalid_annotation_program(&mut Unstructured::new(&data)) {
            bump(format!("defect {defect:?}"));
        }
    }
    for pattern in expected_patterns() {
        if !histogram.contains_key(&format!("pattern {pattern}")) {
            println!("never generated: {pattern}");
        }
    }
    for (k, v) in histogram {
        println!("{k:<44} {v}");
    }
}
