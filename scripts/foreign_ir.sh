#!/usr/bin/env bash
# Regenerates corpus/ttgir: Triton's token IR (TTGIR with shared memory allocated) and PTX of
# pipelined kernels for sm_80 and sm_90, compiled ahead of time (no GPU needed). Installs the
# pinned Triton into third_party/foreign when it is missing (scripts/foreign_venv.sh, shared with
# scripts/foreign_ptx.sh). The generated files are committed, so the readers' tests do not need
# Triton.
#
#   ./scripts/foreign_ir.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/foreign_venv.sh
mkdir -p corpus/ttgir
"$venv/bin/python" scripts/foreign_ir.py
