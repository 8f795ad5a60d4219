#!/bin/bash -eu
# Builds every cargo-fuzz target with the sanitizer ClusterFuzzLite asks for and copies the
# binaries, their seed corpora and the libz3 they load into $OUT.
cd "$SRC/tirproof"
./scripts/setup.sh
# The fuzzers run from $OUT on another machine: load libz3 from beside them.
export RUSTFLAGS="${RUSTFLAGS:-} -C link-arg=-Wl,-rpath,\$ORIGIN/lib"
cargo fuzz build -O
mkdir -p "$OUT/lib"
cp third_party/z3/lib/libz3.so* "$OUT/lib/"
for target in parse pipeline verify cse; do
    cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/$target"
    (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
