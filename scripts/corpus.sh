#!/usr/bin/env bash
# The main job: run every corpus case and print one line per program, then the totals.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# cargo shows its progress: the first build takes a few minutes.
cargo run --release -- corpus corpus "$@"
