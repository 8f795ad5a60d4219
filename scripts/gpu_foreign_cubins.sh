#!/usr/bin/env bash
# Assembles every kernel of corpus/ptx-foreign and every mutant of it (as ptx/tests/foreign.rs
# makes them) into cubins for the H100/H200, with index.json saying which cubin is which text.
# For a device whose driver cannot JIT the PTX ISA of the files (Triton's sm_90a files are PTX
# ISA 9.4, which needs CUDA 13.4's ptxas): build here, carry OUTDIR to the device, and run
#   python3 scripts/gpu_foreign.py --cubins OUTDIR --repeats 100 --json foreign.json
# Usage: scripts/gpu_foreign_cubins.sh OUTDIR (default .gpu/cubins). Environment: PTXAS (default
# third_party/ptxas134/bin/ptxas, installed by scripts/setup.sh), JOBS (default: the cores).
# sm_90a files assemble for sm_90a; sm_80 files for sm_90 (an sm_80 cubin does not run there).
# Exits non-zero when a kernel as compiled does not assemble; a mutant that does not is
# recorded in the index and reported as not assembled on the device.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-.gpu/cubins}"
PTXAS="${PTXAS:-third_party/ptxas134/bin/ptxas}"
if ! "$PTXAS" --version >/dev/null 2>&1; then
    echo "no ptxas at $PTXAS (set PTXAS to a CUDA 13.4 or later ptxas)" >&2
    exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"
python3 scripts/gpu_foreign.py --build-cubins "$OUT" --ptxas "$PTXAS" --jobs "${JOBS:-$(nproc)}"
