#!/usr/bin/env bash
# The checks that need a GPU, for a machine with one (x86-64, an NVIDIA GPU with its driver,
# the CUDA toolkit's ptxas and compute-sanitizer on the PATH or in /usr/local/cuda/bin, CuPy
# for the foreign kernels; no network needed). Writes everything under
# gpu-results/DATE/ (or the folder given as the first argument):
#   summary.txt       device, driver, date, and one line per check with its counts and time
#   tests.log         the GPU tests (tirproof-gpu, the gpu engine and oracle, corpus on GPU)
#   corpus.log        every corpus program through `tirproof run --engine gpu --reference`
#   campaign-K/       campaigns of PROGRAMS generated programs with --oracle ptx --oracle gpu
#                     (about one in four is an arbitrary async program, which only `verify`
#                     applies to, so the default 13000 puts at least 10,000 through the GPU)
#   racecheck.log     every corpus kernel under compute-sanitizer --tool racecheck
#   foreign.log       corpus/ptx-foreign's kernels and their mutants, REPEATS runs each
#   bandwidth.csv     the streaming kernel (none, 2-, 3-, 4-stage) against memcpy_dtod, 4 GiB
# Environment:
#   PROGRAMS (default 13000) campaign programs, CAMPAIGN_TIME (default 2h) its time limit,
#   CAMPAIGNS (default 1) campaign processes that share them;
#   JOBS (default: the cores) campaign jobs, PARALLEL (default 8) corpus runs at a time;
#   REPEATS (default 300) runs of each foreign kernel and mutant; CUBINS the folder of their
#   cubins (scripts/gpu_foreign_cubins.sh, run where a CUDA 13.4 ptxas is), else the JIT;
#   STEPS (default "tests corpus campaign racecheck foreign bandwidth") the steps to run;
#   SKIP_BUILD=1 uses the binaries already in $CARGO_TARGET_DIR/release (tirproof, the
#   bandwidth example, and the test executables in deps/) instead of building them, for a
#   machine without Rust.
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
export PATH="$PATH:/usr/local/cuda/bin"
OUT="${1:-gpu-results/$(date -u +%Y%m%dT%H%M%SZ)}"
PROGRAMS="${PROGRAMS:-13000}"
CAMPAIGN_TIME="${CAMPAIGN_TIME:-2h}"
JOBS="${JOBS:-$(nproc)}"
PARALLEL="${PARALLEL:-8}"
REPEATS="${REPEATS:-300}"
CAMPAIGNS="${CAMPAIGNS:-1}"
STEPS="${STEPS:-tests corpus campaign racecheck foreign bandwidth}"
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
RELEASE="$CARGO_TARGET_DIR/release"
export BIN="$RELEASE/tirproof"

# Notes go to the summary and to the script's own output, never into a step's log.
exec 3>&1
note() { echo "$*" | tee -a "$SUMMARY" >&3; }
wanted() { [[ " $STEPS " == *" $1 "* ]]; }
# Runs a named step, recording its exit status and seconds.
step() {
    local name="$1"; shift
    local start=$SECONDS
    "$@"
    local rc=$?
    note "$name: exit $rc in $((SECONDS - start)) s"
    return 0
}
# The newest test executable of a test target (`gpu_run`, `tirproof_gpu`...) in deps/.
test_binary() { ls -t "$RELEASE"/deps/"$1"-* 2>/dev/null | grep -v '\.d$' | head -1; }

note "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
note "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
note "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
note "ptxas: $(ptxas --version 2>/dev/null | tail -1 || echo none)"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    cargo build --release --all-targets >"$OUT/build.log" 2>&1 || { note "build failed: see build.log"; exit 1; }
fi

# 1. The GPU tests: on this machine they run, not skip.
tests() {
    local status=0
    for target in tirproof_gpu stream_kernels no_gpu gpu_run gpu_corpus; do
        "$(test_binary $target)" --nocapture --test-threads 1 || status=1
    done
    "$(test_binary tirproof_fuzz)" gpu --nocapture || status=1
    return $status
}
if wanted tests; then
    step "gpu tests" tests >"$OUT/tests.log" 2>&1
    note "  $(grep -c '^test .* ok$' "$OUT/tests.log") passed, $(grep -c '^test .* FAILED$' "$OUT/tests.log") failed; $(grep -m1 'ran on the GPU equal' "$OUT/tests.log" || echo 'corpus on GPU: no line')"
    if grep -q "skipped" "$OUT/tests.log"; then note "  WARNING: skipped: $(grep -m1 'skipped' "$OUT/tests.log")"; fi
fi

# 2. Every corpus program on the GPU against the interpreter, as a user runs it.
corpus_one() {
    local out rc
    out=$("$BIN" run --engine gpu "$1" --reference "$1" 2>&1)
    rc=$?
    local verdict=not-run
    if [ $rc -eq 0 ]; then verdict=equal
    elif echo "$out" | grep -q "^mismatch.*the original program faults"; then verdict=reference-faults
    elif echo "$out" | grep -q "^mismatch"; then verdict=mismatch; fi
    echo "$verdict $1: exit $rc: $(echo "$out" | grep -m1 -E '^(mismatch|error|fault)' || echo "$out" | tail -1)"
    if [ $verdict = mismatch ]; then echo "$out" | sed 's/^/    /'; fi
}
export -f corpus_one
corpus() {
    find corpus/pipeline corpus/rfc corpus/tvm corpus/lowering corpus/verify corpus/regressions corpus/faults \
        corpus/cse corpus/ptx -name '*.py' | sort | xargs -P "$PARALLEL" -I{} bash -c 'corpus_one {}' | sort -k2
    echo "equal: $(grep -c '^equal' "$OUT/corpus.log"), mismatches: $(grep -c '^mismatch' "$OUT/corpus.log"), the interpreter faults (racy programs): $(grep -c '^reference-faults' "$OUT/corpus.log"), not run (not lowerable, refused): $(grep -c '^not-run' "$OUT/corpus.log")"
}
if wanted corpus; then
    step "corpus on gpu" corpus >"$OUT/corpus.log" 2>&1
    note "  $(tail -1 "$OUT/corpus.log")"
fi

# 3. A campaign with the gpu oracle (and ptx, which runs first and guards it).
#    CAMPAIGNS processes (seeds 1, 2, ...) share PROGRAMS and JOBS: one process loads one kernel
#    at a time into the driver, whose JIT is the bottleneck.
campaigns() {
    local k
    for k in $(seq 1 "$CAMPAIGNS"); do
        "$BIN" fuzz --out "$OUT/campaign-$k" --programs $((PROGRAMS / CAMPAIGNS)) --time "$CAMPAIGN_TIME" \
            --jobs $((JOBS / CAMPAIGNS > 0 ? JOBS / CAMPAIGNS : 1)) --seed "$k" --oracle ptx --oracle gpu --valid-only \
            >"$OUT/campaign-$k.log" 2>&1 &
    done
    wait
}
if wanted campaign; then
    step "campaign" campaigns
    for k in $(seq 1 "$CAMPAIGNS"); do
        note "  seed $k: $(grep -m1 ' programs in ' "$OUT/campaign-$k.log"); gpu: $(grep -m1 '^  gpu ' "$OUT/campaign-$k.log" | tr -s ' '); $(tail -1 "$OUT/campaign-$k.log")"
    done
fi

# 4. Every corpus kernel under compute-sanitizer's race checker.
#    A kernel the emulator finds racy is launched all the same (its fault is one of ordering),
#    so each line pairs the two verdicts: racecheck's (race/clean) and the emulator's.
racecheck_one() {
    local log rc sanitizer emulator
    log=$(timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 "$BIN" run --engine gpu "$1" 2>&1)
    rc=$?
    if [ $rc -eq 99 ] || echo "$log" | grep -q "RACECHECK SUMMARY: [1-9]"; then sanitizer=race; else sanitizer=clean; fi
    if echo "$log" | grep -q "^fault in the PTX"; then emulator=fault
    elif [ $rc -eq 0 ] || [ $rc -eq 99 ]; then emulator=clean
    else emulator=not-run; fi
    echo "racecheck-$sanitizer emulator-$emulator $1: $(echo "$log" | grep -m1 -E '^fault in the PTX|^error' | cut -c1-300)"
    echo "$log" | grep -E "Race reported|hazard|RACECHECK SUMMARY" | head -6 | sed 's/^/    /'
}
export -f racecheck_one
racecheck() {
    if ! command -v compute-sanitizer >/dev/null; then echo "compute-sanitizer is not installed"; return 1; fi
    find corpus/pipeline corpus/rfc corpus/tvm corpus/lowering corpus/ptx corpus/faults corpus/verify -name '*.py' |
        sort | xargs -P "$PARALLEL" -I{} bash -c 'racecheck_one {}'
    local pair
    for pair in "race fault" "race clean" "clean fault" "clean clean" "race not-run" "clean not-run"; do
        set -- $pair
        echo -n "racecheck $1 / emulator $2: $(grep -c "^racecheck-$1 emulator-$2 " "$OUT/racecheck.log"); "
    done
    echo
}
if wanted racecheck; then
    step "racecheck" racecheck >"$OUT/racecheck.log" 2>&1
    note "  $(tail -1 "$OUT/racecheck.log")"
fi

# 5. The compiler-emitted kernels and their mutants on the hardware.
#    From the cubins of scripts/gpu_foreign_cubins.sh when CUBINS names their folder (the
#    driver's JIT cannot read Triton's sm_90a files, PTX ISA 9.4, before CUDA 13.4).
if wanted foreign; then
    step "foreign kernels" python3 scripts/gpu_foreign.py --repeats "$REPEATS" --json "$OUT/foreign.json" \
        ${CUBINS:+--cubins "$CUBINS"} >"$OUT/foreign.log" 2>&1
    note "  $(grep -c ' 0 of ' "$OUT/foreign.log") cases never wrong, $(grep -c 'runs wrong' "$OUT/foreign.log") run to the end, $(grep -c ': hang' "$OUT/foreign.log") hung; $(tail -1 "$OUT/foreign.log")"
fi

# 6. Bandwidth: the streaming kernel over 4 GiB, without and with 2-, 3-, 4-stage pipelines,
#    against a device-to-device copy in the same run; alone on the GPU.
if wanted bandwidth; then
    step "bandwidth" "$RELEASE/examples/bandwidth" --csv "$OUT/bandwidth.csv" >"$OUT/bandwidth.log" 2>&1
    tee -a "$SUMMARY" <"$OUT/bandwidth.log"
fi

note "results in $OUT"
