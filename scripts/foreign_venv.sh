#!/usr/bin/env bash
# The pinned compilers of the foreign corpora, in one venv (third_party/foreign): Triton 3.9.0
# with its own LLVM and ptxas, nvcc 13.0.88 with cuda_pipeline.h and its NVVM pinned to 13.0,
# libcu++. Sourced by scripts/foreign_ptx.sh and scripts/foreign_ir.sh (run from the repository
# root); installs only when the venv is missing or holds another Triton. Sets `venv`.
venv=third_party/foreign
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import triton; assert triton.__version__ == "3.9.0"' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        triton==3.9.0 nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
        nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.3.5.0.6
fi
