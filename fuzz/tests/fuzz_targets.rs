//! Replays every cargo-fuzz target's corpus (`fuzz/corpus/<target>/`) through the target's
//! function, on the stable toolchain: what libFuzzer once found stays fixed. The parse target
//! also gets every program of the repository's corpus.

use std::path::Path;

use tirproof_fuzz::targets::{replay_path, TARGETS};

#[test]
fn every_target_corpus_replays_without_a_failure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (name, target) in TARGETS {
        let mut count = 0;
        if let Err(message) = replay_path(&root.join(name), target, &mut count) {
            panic!("target {name}: {message}");
        }
        assert!(count > 0, "target {name} has an empty corpus");
    }
}

#[test]
fn the_parse_target_accepts_the_whole_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut count = 0;
    if let Err(message) = replay_path(&corpus, tirproof_fuzz::targets::parse, &mut count) {
        panic!("{message}");
    }
    assert!(count > 100, "only {count} corpus files");
}
