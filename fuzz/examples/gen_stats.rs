//! Prints a histogram of what the pipeline generator produces from random bytes, to check
//! that the proptest explores every pattern (`cargo run --release -p tirproof-fuzz --example gen_stats`).

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use tirproof_fuzz::gen::{pipeline_program, GenConfig};

fn main() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..2000 {
        let bytes: Vec<u8> = (0..128)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let mut u = Unstructured::new(&bytes);
        let Ok((_, shape)) = pipeline_program(&mut u, &GenConfig::default()) else { continue };
        let mut bump = |k: String| *histogram.entry(k).or_default() += 1;
        bump(format!("statements {}", shape.stages.len()));
        bump(format!("max stage {}", shape.stages.iter().max().unwrap_or(&0)));
        bump(format!("async stages {}", shape.async_stages.len()));
        bump(format!("extent {:?}", shape.extent));
        bump(format!("lanes {}", shape.lanes));
        bump(format!("threads {}", shape.threads));
    }
    for (k, v) in histogram {
        println!("{k:<24} {v}");
    }
}
