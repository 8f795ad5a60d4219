#!/usr/bin/env bash
# Draws docs/verify_scaling.svg: `tirproof verify` time and peak memory against program size
# (scripts/plot_scaling.py says which programs). Installs matplotlib into third_party/plot.
#
#   ./scripts/plot_scaling.sh
set -euo pipefail
cd "$(dirname "$0")/.."
venv=third_party/plot
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check matplotlib==3.10.7
fi
cargo build --release --quiet
"$venv/bin/python" scripts/plot_scaling.py ./target/release/tirproof
