#!/usr/bin/env bash
# Runs the whole test suite: unit tests, proptests, the corpus filetests and CLI tests.
# Installs what the tests need on a fresh machine first (see scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# TVM is a peer the tests audit, not a build dependency: without it (no network to PyPI, say)
# the tests that need it are skipped and say why.
./scripts/setup_tvm.sh || echo "test: TVM could not be installed; the tests that need it are skipped" >&2
cargo test --workspace --release
