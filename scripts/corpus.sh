#!/usr/bin/env bash
# The main job: run every corpus case and print one line per program, then the totals.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo run --release --quiet -- corpus corpus "$@"
