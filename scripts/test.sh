#!/usr/bin/env bash
# Runs the whole test suite: unit tests, proptests, the corpus filetests and CLI tests.
# Installs what the tests need on a fresh machine first (see scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --workspace --release
