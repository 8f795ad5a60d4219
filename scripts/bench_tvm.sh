#!/usr/bin/env bash
# Times TVM 0.27's InjectSoftwarePipeline and CommonSubexprElim (TVM's own PassTimingInstrument)
# next to `tirproof opt --time` on the same files, in one run: scripts/bench_tvm.py. Installs
# apache-tvm 0.27.0.post1 from PyPI into third_party/tvm (a Python venv).
#
#   ./scripts/bench_tvm.sh [REPEAT] [ROUNDS]   # REPEAT runs per pass and file, medians (default 500);
#                                              # ROUNDS back-to-back measurements of both sides (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup_tvm.sh
venv=third_party/tvm
cargo build --release --quiet
"$venv/bin/python" scripts/bench_tvm.py "${1:-500}" ./target/release/tirproof "${2:-5}"
