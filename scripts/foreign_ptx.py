#!/usr/bin/env python3
"""Compiles the compiler-emitted kernels of corpus/ptx-foreign from their sources.

Triton kernels (scripts/foreign/triton_kernels.py) are compiled ahead of time for sm_80 with
Triton's own compiler (their TTGIR after shared-memory allocation is written next to the PTX,
so the audit of the token IR and the emulator's run of the PTX meet on one compile); CUDA kernels (scripts/foreign/*.cu) with nvcc -ptx. Writes each kernel's
PTX, unmodified, and kernels.json: how to launch each kernel (grid, block, dynamic shared
bytes, the parameters in order, buffers with their element type and length) and which
reference computes its output.
The PTX emulator's tests (ptx/tests/foreign.rs) run these kernels and their mutants.

Run through scripts/foreign_ptx.sh, which installs the pinned compilers first.
"""

import json
import os
import subprocess
import sys

# Relative to the repository root (foreign_ptx.sh runs from there), so the source paths that
# Triton's line information records name no directory of the machine that built them.
OUT = os.path.join("corpus", "ptx-foreign")
SRC = os.path.join("scripts", "foreign")
sys.path.insert(0, SRC)

# Results must not depend on the machine's defaults: no contraction of a*b+c.
os.environ["TRITON_DEFAULT_FP_FUSION"] = "0"
# Without line information: Triton's `.file` directive and DWARF sections record the absolute
# path of the source and of the directory it was compiled in (the emulator's parser skips
# debug information; its own tests cover the directives).
os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
os.environ["TRITON_ALWAYS_COMPILE"] = "1"

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import foreign_ir  # noqa: E402  (one home for Triton's shared-memory allocation pass)
import triton_kernels  # noqa: E402

TARGET = GPUTarget("cuda", 80, 32)
# Pointers, sizes and strides divisible by 16: without the hints Triton neither vectorizes
# the loads nor issues cp.async.
DIVISIBLE = [["tt.divisibility", 16]]


def buffer(name, dtype, length):
    return {"buffer": name, "dtype": dtype, "len": length}


def scalar(ty, value):
    return {"scalar": ty, "value": value}


def triton_ptx(fn, signature, constexprs, divisible, num_stages, num_warps):
    attrs = {(signature_index(signature, name),): DIVISIBLE for name in divisible}
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    kernel = triton.compile(src, target=TARGET, options={"num_stages": num_stages, "num_warps": num_warps})
    ptx = kernel.asm["ptx"]
    # The token IR of the same compile, with shared memory allocated, for the audit of its waits.
    ttgir = foreign_ir.allocate_shared_memory(kernel.asm["ttgir"], TARGET.arch, foreign_ir.ptx_version(ptx))
    return ptx, kernel.metadata.shared, str(ttgir)


def signature_index(signature, name):
    return list(signature).index(name)


def triton_launches():
    launches = []
    m, n, k, tile = 64, 64, 128, 32
    signature = {
        "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
        "stride_cm": "i32", "stride_cn": "constexpr", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr",
    }
    constexprs = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BM": tile, "BN": tile, "BK": tile}
    divisible = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"]
    for stages in (2, 3, 4):
        ptx, shared, ttgir = triton_ptx(triton_kernels.matmul, signature, constexprs, divisible, stages, 4)
        launches.append({
            "file": f"triton_matmul_s{stages}.ptx", "ptx": ptx, "kernel": "matmul",
            "ttgir": f"triton_matmul_s{stages}.ttgir", "ttgir_text": ttgir,
            "grid": [m // tile, n // tile, 1], "block": [128, 1, 1], "shared": shared,
            "params": [buffer("a", "float16", m * k), buffer("b", "float16", k * n), buffer("c", "float32", m * n),
                       scalar("u32", m), scalar("u32", n), scalar("u32", k),
                       scalar("u32", k), scalar("u32", n), scalar("u32", m),
                       # Triton appends its global and profile scratch pointers; unused here.
                       scalar("u64", 0), scalar("u64", 0)],
            "reference": {"matmul": {"m": m, "n": n, "k": k}},
        })
    rows, length, block = 2, 512, 128
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    ptx, shared, ttgir = triton_ptx(triton_kernels.row_sum, signature, {"BLOCK": block}, ["x_ptr", "out_ptr", "n"], 3, 4)
    launches.append({
        "file": "triton_row_sum.ptx", "ptx": ptx, "kernel": "row_sum",
        "ttgir": "triton_row_sum.ttgir", "ttgir_text": ttgir,
        "grid": [rows, 1, 1], "block": [128, 1, 1], "shared": shared,
        "params": [buffer("x", "float32", rows * length), buffer("out", "float32", rows * block),
                   scalar("u32", length), scalar("u64", 0), scalar("u64", 0)],
        "reference": {"row_sum": {"rows": rows, "n": length, "block": block}},
    })
    return launches


def nvcc_ptx(nvcc, include, source):
    result = subprocess.run(
        [nvcc, "-arch=sm_80", "-ptx", "-O3", f"-I{include}", f"-I{include}/cccl", os.path.join(SRC, source),
         "-o", "-"],
        check=True, capture_output=True, text=True)
    return result.stdout


def nvcc_launches(nvcc, include):
    launches = []
    ptx = nvcc_ptx(nvcc, include, "nvcc_pipeline_primitives.cu")
    # 5 tiles: the loop unrolled by 4 and its remainder both run.
    blocks, tiles = 2, 5
    launches.append({
        "file": "nvcc_pipeline_primitives.ptx", "ptx": ptx, "kernel": "pipelined_scale",
        "grid": [blocks, 1, 1], "block": [128, 1, 1], "shared": 0,
        "params": [buffer("in", "float32", blocks * tiles * 128), buffer("out", "float32", blocks * tiles * 128),
                   scalar("u32", tiles)],
        "reference": {"scale_neighbour": {"blocks": blocks, "tiles": tiles, "width": 128}},
    })
    ptx = nvcc_ptx(nvcc, include, "nvcc_inline_cp_async.cu")
    # nvcc unrolls the tile loop by 4: 6 tiles run the unrolled body and the remainder loop.
    tiles = 6
    for kernel, neighbour in (("neighbour_copy", True), ("own_copy", False)):
        launches.append({
            "file": "nvcc_inline_cp_async.ptx", "ptx": ptx, "kernel": kernel,
            "grid": [1, 1, 1], "block": [64, 1, 1], "shared": 0,
            "params": [buffer("in", "float32", tiles * 64 * 4), buffer("out", "float32", tiles * 64 * 4),
                       scalar("u32", tiles)],
            "reference": {"copy_plus_one": {"tiles": tiles, "width": 64, "vector": 4, "neighbour": neighbour}},
        })
    return launches


def main():
    nvcc, include = sys.argv[1], sys.argv[2]
    launches = triton_launches() + nvcc_launches(nvcc, include)
    for launch in launches:
        with open(os.path.join(OUT, launch["file"]), "w") as out:
            out.write(launch.pop("ptx"))
        if "ttgir" in launch:
            with open(os.path.join(OUT, launch["ttgir"]), "w") as out:
                out.write(launch.pop("ttgir_text"))
    manifest = {"triton": triton.__version__, "nvcc": nvcc_version(nvcc), "launches": launches}
    with open(os.path.join(OUT, "kernels.json"), "w") as out:
        json.dump(manifest, out, indent=1)
        out.write("\n")
    print(f"foreign_ptx: wrote {len(launches)} launches into corpus/ptx-foreign")


def nvcc_version(nvcc):
    text = subprocess.run([nvcc, "--version"], check=True, capture_output=True, text=True).stdout
    return text.strip().splitlines()[-1]


if __name__ == "__main__":
    main()
