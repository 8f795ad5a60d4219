#!/usr/bin/env bash
# Regenerates corpus/ttgir: Triton's token IR (TTGIR with shared memory allocated) and PTX of
# pipelined kernels for sm_80 and sm_90, compiled ahead of time (no GPU needed). Installs the
# pinned Triton into third_party/foreign when it is missing, with the same pins as
# scripts/foreign_ptx.sh, which shares the venv (so either script leaves it complete for the other). The generated files are committed, so the readers' tests do not need Triton.
#
#   ./scripts/foreign_ir.sh
set -euo pipefail
cd "$(dirname "$0")/.."
venv=third_party/foreign
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import triton; assert triton.__version__ == "3.9.0"' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        triton==3.9.0 nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
        nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.3.5.0.6
fi
mkdir -p corpus/ttgir
"$venv/bin/python" scripts/foreign_ir.py
