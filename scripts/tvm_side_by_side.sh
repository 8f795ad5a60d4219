#!/usr/bin/env bash
# tirproof's pipeline pass and TVM 0.27's side by side on the TVM seeds and N generated
# programs, in one run: time, correctness of each output, TVM's errors
# (scripts/tvm_side_by_side.py says how each is measured). Installs TVM (scripts/setup_tvm.sh).
#
#   ./scripts/tvm_side_by_side.sh [N] [REPEAT] [SEED]     # defaults: 100 programs, 200 runs, seed 7
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup_tvm.sh
cargo build --release --quiet
third_party/tvm/bin/python scripts/tvm_side_by_side.py "${1:-100}" "${2:-200}" "${3:-7}" ./target/release/tirproof
