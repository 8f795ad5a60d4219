#!/usr/bin/env bash
# Installs everything the build needs that cargo does not fetch by itself.
# Idempotent: does nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is required (https://rustup.rs)" >&2
    exit 2
fi
