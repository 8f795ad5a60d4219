#!/usr/bin/env python3
"""Compiles the compiler-emitted kernels of corpus/ptx-foreign from their sources.

Triton kernels (scripts/foreign/triton_kernels.py, triton_ir_kernels.py) are compiled ahead of
time with Triton's own compiler: the sm_80 matmuls with their TTGIR after shared-memory
allocation written next to the PTX (so the audit of the token IR and the emulator's run of the
PTX meet on one compile), and every pipelined kernel (matmuls of 2-4 stages in f16, bf16 and
f32, reductions, trip counts loaded from memory, flash attention, causal attention, the TMA
matmul) for sm_80 and sm_90a; CUDA kernels (scripts/foreign/*.cu) with nvcc -ptx. Writes each kernel's
PTX, unmodified, and kernels.json: how to launch each kernel (grid, block, dynamic shared
bytes, the parameters in order, buffers with their element type and length) and which
reference computes its output.
The PTX emulator's tests (ptx/tests/foreign.rs) run these kernels and their mutants.

Run through scripts/foreign_ptx.sh, which installs the pinned compilers first.
"""

import json
import os
import struct
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
import triton_ir_kernels  # noqa: E402
import triton_kernels  # noqa: E402

TARGET = GPUTarget("cuda", 80, 32)
# Pointers, sizes and strides divisible by 16: without the hints Triton neither vectorizes
# the loads nor issues cp.async.
DIVISIBLE = [["tt.divisibility", 16]]


def buffer(name, dtype, length, fill=None):
    """A buffer parameter; `fill` gives its values (a list), or "zeros"; by default the tests
    fill it with small integers."""
    param = {"buffer": name, "dtype": dtype, "len": length}
    if fill is not None:
        param["fill"] = fill
    return param


def f32_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def scalar(ty, value):
    return {"scalar": ty, "value": value}


def compile_triton(fn, signature, constexprs, divisible, num_stages, num_warps, target=TARGET):
    attrs = {(signature_index(signature, name),): DIVISIBLE for name in divisible}
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=target, options={"num_stages": num_stages, "num_warps": num_warps})


def triton_ptx(fn, signature, constexprs, divisible, num_stages, num_warps):
    kernel = compile_triton(fn, signature, constexprs, divisible, num_stages, num_warps)
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
                       scalar("u32", k), scalar("u32", n), scalar("u32", m)] + UNUSED_SCRATCH,
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
                   scalar("u32", length)] + UNUSED_SCRATCH,
        "reference": {"row_sum": {"rows": rows, "n": length, "block": block}},
    })
    return launches


# Triton appends its global and profile scratch pointers to every kernel's parameters.
UNUSED_SCRATCH = [scalar("u64", 0), scalar("u64", 0)]


def scratch(metadata, programs):
    """The global scratch buffer a kernel needs (Triton's metadata: bytes per program), and the
    unused profile scratch."""
    size = metadata.global_scratch_size
    if size == 0:
        return UNUSED_SCRATCH
    return [buffer("scratch", "uint8", size * programs, "zeros"), scalar("u64", 0)]


class Pipelined:
    """One Triton kernel compiled for each target: how to compile, launch and check it."""

    def __init__(self, name, fn, signature, constexprs, divisible, stages, warps, grid, params, reference,
                 targets=(80, 90)):
        self.name, self.fn, self.signature, self.constexprs = name, fn, signature, constexprs
        self.divisible, self.stages, self.warps, self.grid = divisible, stages, warps, grid
        self.params, self.reference, self.targets = params, reference, targets


def matmul_signature(element):
    signature = dict(foreign_ir.matmul_signature(element))
    if element == "fp32":
        signature["a_ptr"], signature["b_ptr"] = "*fp32", "*fp32"
    return signature


def matmul_launch(name, element, dtype, stages, warps, tiles, m, n, k):
    bm, bn, bk = tiles
    return Pipelined(
        name, triton_kernels.matmul, matmul_signature(element),
        {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BM": bm, "BN": bn, "BK": bk},
        foreign_ir.MATMUL_DIVISIBLE, stages, warps, [m // bm, n // bn, 1],
        [buffer("a", dtype, m * k), buffer("b", dtype, k * n), buffer("c", "float32", m * n),
         # M, N, K, then the row strides of a (K), b (N) and c (N).
         scalar("u32", m), scalar("u32", n), scalar("u32", k), scalar("u32", k), scalar("u32", n), scalar("u32", n)],
        {"matmul": {"m": m, "n": n, "k": k}})


def attention_launch(name, fn, causal, seq, heads, head_dim, scale):
    length = heads * seq * head_dim
    params = [buffer(x, "float16", length) for x in ("q", "k", "v")] + [buffer("o", "float16", length, "zeros")]
    if not causal:
        params.append(scalar("u32", seq))
    params += [scalar("u32", seq * head_dim), scalar("u32", head_dim), scalar("f32", f32_bits(scale))]
    divisible = ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "stride_head", "stride_row"] + ([] if causal else ["seq_len"])
    return Pipelined(
        name, fn, foreign_ir.attention_signature(not causal), {"BM": 64, "BN": 64, "HEAD": head_dim}, divisible, 3, 4,
        [seq // 64, heads, 1], params,
        {"attention": {"seq": seq, "heads": heads, "head_dim": head_dim, "scale": scale, "causal": causal}})


def pipelined_kernels():
    """Every pipelined kernel the emulator runs for both targets, at sizes it runs quickly."""
    kernels = [matmul_launch(f"triton_matmul_f16_s{s}", "fp16", "float16", s, 4, (64, 64, 32), 128, 64, 128)
               for s in (2, 3, 4)]
    kernels += [
        matmul_launch("triton_matmul_bf16_s3", "bf16", "bfloat16", 3, 8, (128, 128, 64), 128, 128, 256),
        matmul_launch("triton_matmul_f32_s3", "fp32", "float32", 3, 4, (64, 64, 32), 64, 64, 128),
        Pipelined("triton_row_sum_s3", triton_kernels.row_sum,
                  {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 128},
                  ["x_ptr", "out_ptr", "n"], 3, 4, [2, 1, 1],
                  [buffer("x", "float32", 2 * 512), buffer("out", "float32", 2 * 128, "zeros"), scalar("u32", 512)],
                  # sm_80's is triton_row_sum.ptx, with its TTGIR.
                  {"row_sum": {"rows": 2, "n": 512, "block": 128}}, targets=(90,)),
        # The trip count is read from memory: 3 tiles of 32 x 32 per row.
        Pipelined("triton_dynamic_trip_sum", triton_ir_kernels.dynamic_trip_sum,
                  {"x_ptr": "*fp32", "n_ptr": "*i32", "out_ptr": "*fp32", "stride": "i32",
                   "BLOCK": "constexpr", "WIDTH": "constexpr"}, {"BLOCK": 32, "WIDTH": 32},
                  ["x_ptr", "n_ptr", "out_ptr", "stride"], 3, 4, [2, 1, 1],
                  [buffer("x", "float32", 2 * 3 * 32 * 32), buffer("n", "int32", 1, [3]),
                   buffer("out", "float32", 2 * 32 * 32, "zeros"), scalar("u32", 3 * 32 * 32)],
                  {"tile_sum": {"rows": 2, "tiles": 3, "block": 32, "width": 32}}),
        # The number of K tiles (3) is read from memory.
        Pipelined("triton_dynamic_trip_matmul", triton_ir_kernels.dynamic_trip_matmul,
                  {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "k_ptr": "*i32", "stride_am": "i32",
                   "stride_bk": "i32", "stride_cm": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                  {"BM": 64, "BN": 64, "BK": 32},
                  ["a_ptr", "b_ptr", "c_ptr", "k_ptr", "stride_am", "stride_bk", "stride_cm"], 3, 4, [1, 1, 1],
                  [buffer("a", "float16", 64 * 96), buffer("b", "float16", 96 * 64), buffer("c", "float32", 64 * 64),
                   buffer("k", "int32", 1, [3]), scalar("u32", 96), scalar("u32", 64), scalar("u32", 64)],
                  {"matmul": {"m": 64, "n": 64, "k": 96}}),
        attention_launch("triton_flash_attention", triton_ir_kernels.flash_attention, False, 128, 1, 64, 1 / 64),
        attention_launch("triton_causal_attention", triton_ir_kernels.causal_attention, True, 128, 1, 64, 1 / 64),
        Pipelined("triton_tma_matmul", triton_kernels.tma_matmul,
                  {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                   "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}, {"BM": 64, "BN": 64, "BK": 32},
                  ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], 3, 4, [2, 2, 1],
                  [buffer("a", "float16", 128 * 128), buffer("b", "float16", 128 * 128),
                   buffer("c", "float32", 128 * 128, "zeros"),
                   scalar("u32", 128), scalar("u32", 128), scalar("u32", 128)],
                  {"matmul": {"m": 128, "n": 128, "k": 128}}, targets=(90,)),
    ]
    return kernels


def launch_file(launch, kernel_name):
    """The launch as a `tirproof run --ptx FILE --launch` file: parameters by their PTX names,
    buffers random (seeded) unless the manifest fixes their contents (a trip count)."""
    params = {}
    for index, param in enumerate(launch["params"]):
        name = f"{kernel_name}_param_{index}"
        if "buffer" in param:
            if isinstance(param.get("fill"), list):
                return None  # fixed contents need a .npy file; the manifest's tests cover these
            params[name] = {"buffer": {"dtype": param["dtype"], "len": param["len"]}}
        elif param["scalar"] == "f32":
            params[name] = {"scalar": struct.unpack("<f", struct.pack("<I", param["value"]))[0]}
        else:
            params[name] = {"scalar": param["value"]}
    return {"kernel": kernel_name, "grid": launch["grid"], "block": launch["block"], "shared": launch["shared"],
            "params": params}


def pipelined_launches():
    launches = []
    for kernel in pipelined_kernels():
        for capability in kernel.targets:
            target = GPUTarget("cuda", capability, 32)
            compiled = compile_triton(kernel.fn, kernel.signature, kernel.constexprs, kernel.divisible,
                                      kernel.stages, kernel.warps, target)
            ptx = compiled.asm["ptx"]
            arch = ptx.split(".target ", 1)[1].split()[0]
            programs = kernel.grid[0] * kernel.grid[1] * kernel.grid[2]
            launches.append({
                "file": f"{kernel.name}_{arch}.ptx", "ptx": ptx, "kernel": kernel.fn.fn.__name__,
                "grid": kernel.grid, "block": [32 * kernel.warps, 1, 1], "shared": compiled.metadata.shared,
                "params": kernel.params + scratch(compiled.metadata, programs),
                "reference": kernel.reference,
            })
            launches[-1]["launch_file"] = launch_file(launches[-1], kernel.fn.fn.__name__)
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
    for kernel in ("pipelined_scale", "pipelined_scale_idiom"):
        launches.append({
            "file": "nvcc_pipeline_primitives.ptx", "ptx": ptx, "kernel": kernel,
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
    launches = triton_launches() + pipelined_launches() + nvcc_launches(nvcc, include)
    for launch in launches:
        with open(os.path.join(OUT, launch["file"]), "w") as out:
            out.write(launch.pop("ptx"))
        runnable = launch.pop("launch_file", None)
        if runnable is not None:
            with open(os.path.join(OUT, launch["file"].replace(".ptx", ".launch.json")), "w") as out:
                json.dump(runnable, out, indent=1)
                out.write("\n")
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
