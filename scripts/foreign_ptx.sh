#!/usr/bin/env bash
# Regenerates corpus/ptx-foreign: PTX emitted by Triton and nvcc for the emulator's tests.
# Installs the pinned compilers into third_party/foreign (a Python venv: Triton 3.9.0 with its
# own LLVM and ptxas, nvcc 13.0.88 from the nvidia-cuda-nvcc wheel with cuda_pipeline.h and
# its NVVM pinned to 13.0 too (a newer NVVM writes PTX ISA 9.5, which ptxas 13.0 rejects),
# libcu++ from nvidia-cuda-cccl); no GPU is needed. The generated files are committed, so the
# tests do not need these compilers.
#
#   ./scripts/foreign_ptx.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/foreign_venv.sh
cuda=$("$venv/bin/python" -c 'import os, nvidia; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')
PATH="$cuda/bin:$PATH" "$venv/bin/python" scripts/foreign_ptx.py "$cuda/bin/nvcc" "$cuda/include"
