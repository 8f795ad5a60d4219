#!/usr/bin/env bash
# The checks that need a GPU, for a machine with one (x86-64, an NVIDIA GPU with its driver,
# the CUDA toolkit's nvcc, ptxas and compute-sanitizer on the PATH or in /usr/local/cuda/bin;
# no network needed once the crates are vendored or fetched). Writes everything under
# gpu-results/DATE/ (or the folder given as the first argument):
#   summary.txt       device, driver, date, and one line per check with its counts and time
#   tests.log         the GPU tests (tirproof-gpu, the gpu engine and oracle, corpus on GPU)
#   corpus.log        every corpus program through `tirproof run --engine gpu --reference`
#   campaign/         a campaign of PROGRAMS generated programs with --oracle ptx --oracle gpu
#                     (about one in four is an arbitrary async program, which only `verify`
#                     applies to, so the default 13000 puts at least 10,000 through the GPU)
#   racecheck.log     every corpus kernel under compute-sanitizer --tool racecheck
#   bandwidth.csv     the streaming kernel (none, 2-, 3-, 4-stage) against memcpy_dtod, 4 GiB
# Environment: PROGRAMS (default 13000) campaign programs, JOBS (default: the cores).
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
export PATH="$PATH:/usr/local/cuda/bin"
OUT="${1:-gpu-results/$(date -u +%Y%m%dT%H%M%SZ)}"
PROGRAMS="${PROGRAMS:-13000}"
JOBS="${JOBS:-$(nproc)}"
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
BIN="$CARGO_TARGET_DIR/release/tirproof"

note() { echo "$*" | tee -a "$SUMMARY"; }
# Runs a named step, recording its exit status and seconds.
step() {
    local name="$1"; shift
    local start=$SECONDS
    "$@"
    local rc=$?
    note "$name: exit $rc in $((SECONDS - start)) s"
    return 0
}

note "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
note "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
note "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
note "ptxas: $(ptxas --version 2>/dev/null | tail -1 || echo none)"

cargo build --release --all-targets >"$OUT/build.log" 2>&1 || { note "build failed: see build.log"; exit 1; }

# 1. The GPU tests: on this machine they run, not skip.
tests() {
    cargo test --release -p tirproof-gpu -- --nocapture
    cargo test --release -p tirproof-fuzz --lib gpu -- --nocapture
    cargo test --release --test gpu_run --test gpu_corpus -- --nocapture
}
step "gpu tests" tests >"$OUT/tests.log" 2>&1
note "  $(grep -c '^test .* ok$' "$OUT/tests.log") passed, $(grep -c '^test .* FAILED$' "$OUT/tests.log") failed; $(grep -m1 'ran on the GPU equal' "$OUT/tests.log" || echo 'corpus on GPU: no line')"
if grep -q "skipped: no GPU" "$OUT/tests.log"; then note "  WARNING: the tests skipped the GPU: $(grep -m1 'no GPU' "$OUT/tests.log")"; fi

# 2. Every corpus program on the GPU against the interpreter, as a user runs it.
corpus() {
    local equal=0 differ=0 not_run=0
    while IFS= read -r file; do
        out=$("$BIN" run --engine gpu "$file" --reference "$file" 2>&1)
        rc=$?
        echo "$file: exit $rc: $(echo "$out" | tail -1)"
        case $rc in
            0) equal=$((equal + 1)) ;;
            1) if echo "$out" | grep -q "^mismatch"; then differ=$((differ + 1)); else not_run=$((not_run + 1)); fi ;;
            *) not_run=$((not_run + 1)) ;;
        esac
    done < <(find corpus/pipeline corpus/rfc corpus/tvm corpus/lowering corpus/verify corpus/regressions corpus/faults corpus/cse corpus/ptx -name '*.py' | sort)
    echo "equal: $equal, mismatches: $differ, not run (not lowerable, faulting, refused): $not_run"
}
step "corpus on gpu" corpus >"$OUT/corpus.log" 2>&1
note "  $(tail -1 "$OUT/corpus.log")"
grep "^mismatch" -B1 "$OUT/corpus.log" >"$OUT/corpus-mismatches.log" 2>/dev/null

# 3. A campaign with the gpu oracle (and ptx, which runs first and guards it).
step "campaign" "$BIN" fuzz --out "$OUT/campaign" --programs "$PROGRAMS" --time 2h --jobs "$JOBS" \
    --oracle ptx --oracle gpu --valid-only >"$OUT/campaign.log" 2>&1
note "  $(tail -3 "$OUT/campaign.log" | tr '\n' ' ')"

# 4. Every corpus kernel under compute-sanitizer's race checker.
racecheck() {
    local clean=0 races=0 other=0
    if ! command -v compute-sanitizer >/dev/null; then echo "compute-sanitizer is not installed"; return 1; fi
    while IFS= read -r file; do
        log=$(compute-sanitizer --tool racecheck --error-exitcode 99 "$BIN" run --engine gpu "$file" 2>&1)
        rc=$?
        if [ $rc -eq 99 ] || echo "$log" | grep -q "RACECHECK SUMMARY: [1-9]"; then
            races=$((races + 1)); echo "RACE $file"; echo "$log" | grep -E "Race|hazard|SUMMARY" | head -20
        elif [ $rc -eq 0 ]; then clean=$((clean + 1)); echo "clean $file"
        else other=$((other + 1)); echo "not run ($rc) $file: $(echo "$log" | grep -m1 -E '^error|fault' )"
        fi
    done < <(find corpus/pipeline corpus/rfc corpus/tvm corpus/lowering corpus/ptx -name '*.py' | sort)
    echo "clean: $clean, with races: $races, not run: $other"
}
step "racecheck" racecheck >"$OUT/racecheck.log" 2>&1
note "  $(tail -1 "$OUT/racecheck.log")"

# 5. Bandwidth: the streaming kernel over 4 GiB, without and with 2-, 3-, 4-stage pipelines,
#    against a device-to-device copy in the same run.
step "bandwidth" cargo run --release -p tirproof-gpu --example bandwidth -- --csv "$OUT/bandwidth.csv" \
    >"$OUT/bandwidth.log" 2>&1
cat "$OUT/bandwidth.log" | tee -a "$SUMMARY"

note "results in $OUT"
