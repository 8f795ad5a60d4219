#!/usr/bin/env python3
"""Compiles the pipelined Triton kernels of corpus/ttgir and writes their token IR.

Each kernel (scripts/foreign/triton_kernels.py, scripts/foreign/triton_ir_kernels.py) is
compiled ahead of time for sm_80 and sm_90 with Triton's own compiler; no GPU is needed. For
each kernel and capability it writes:
  NAME_smCAP.ttgir  the final TTGIR with shared memory allocated: Triton's `ttgir` stage parsed
                    back and run through Triton's shared-memory allocation pass alone (the pass
                    the LLVM lowering starts with), so every `ttg.local_alloc` carries
                    `allocation.offset` and the module `ttg.shared`; `scf` loops are kept.
  NAME_smCAP.ptx    the PTX of the same compile.
and kernels.json: the Triton version and, per file, the kernel, capability, stages, warps, the
source function and what the kernel is.

Source locations are kept; the absolute directory of the checkout is cut from them, so the files
name sources relative to the repository root. Run through scripts/foreign_ir.sh, which installs
the pinned Triton first.
"""

import json
import os
import re
import sys
import tempfile

# Relative to the repository root (foreign_ir.sh runs from there).
OUT = os.path.join("corpus", "ttgir")
SRC = os.path.join("scripts", "foreign")
sys.path.insert(0, SRC)

# Results must not depend on the machine's defaults: no contraction of a*b+c.
os.environ["TRITON_DEFAULT_FP_FUSION"] = "0"
os.environ["TRITON_ALWAYS_COMPILE"] = "1"

import triton  # noqa: E402
from triton._C.libtriton import ir, nvidia  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import triton_ir_kernels  # noqa: E402
import triton_kernels  # noqa: E402

CAPABILITIES = (80, 90)
# Pointers, sizes and strides divisible by 16: without the hints Triton neither vectorizes
# the loads nor issues asynchronous copies.
DIVISIBLE = [["tt.divisibility", 16]]
ROOT = os.getcwd()


class Kernel:
    """One compile: a Triton function with its signature, constants and pipelining options."""

    def __init__(self, name, fn, signature, constexprs, divisible, num_stages, num_warps, description):
        self.name = name
        self.fn = fn
        self.signature = signature
        self.constexprs = constexprs
        self.divisible = divisible
        self.num_stages = num_stages
        self.num_warps = num_warps
        self.description = description

    def source(self):
        path = os.path.relpath(self.fn.fn.__code__.co_filename, ROOT)
        return f"{path}:{self.fn.fn.__name__}"


def matmul_kernels():
    kernels = []
    tile = {"BM": 64, "BN": 64, "BK": 32}
    for stages in (2, 3, 4):
        kernels.append(Kernel(
            f"matmul_f16_s{stages}", triton_kernels.matmul, matmul_signature("fp16"),
            {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, **tile}, MATMUL_DIVISIBLE, stages, 4,
            f"f16 matmul, 64x64x32 tiles, K loop pipelined over {stages} stages"))
    kernels.append(Kernel(
        "matmul_bf16_s3", triton_kernels.matmul, matmul_signature("bf16"),
        {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BM": 128, "BN": 128, "BK": 64}, MATMUL_DIVISIBLE, 3, 8,
        "bf16 matmul, 128x128x64 tiles on 8 warps, K loop pipelined over 3 stages"))
    return kernels


MATMUL_DIVISIBLE = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"]


def matmul_signature(element):
    return {
        "a_ptr": f"*{element}", "b_ptr": f"*{element}", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
        "stride_cm": "i32", "stride_cn": "constexpr", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr",
    }


def attention_signature(with_length):
    signature = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16"}
    if with_length:
        signature["seq_len"] = "i32"
    signature.update({"stride_head": "i32", "stride_row": "i32", "scale": "fp32",
                      "BM": "constexpr", "BN": "constexpr", "HEAD": "constexpr"})
    return signature


def other_kernels():
    attention_divisible = ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "stride_head", "stride_row"]
    return [
        Kernel("row_sum_s3", triton_kernels.row_sum, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                                      "BLOCK": "constexpr"},
               {"BLOCK": 128}, ["x_ptr", "out_ptr", "n"], 3, 4,
               "chunked f32 row sum, no dot; tl.range(..., num_stages=3) pipelines the loads"),
        Kernel("dynamic_trip_sum", triton_ir_kernels.dynamic_trip_sum,
               {"x_ptr": "*fp32", "n_ptr": "*i32", "out_ptr": "*fp32", "stride": "i32",
                "BLOCK": "constexpr", "WIDTH": "constexpr"},
               {"BLOCK": 32, "WIDTH": 32}, ["x_ptr", "n_ptr", "out_ptr", "stride"], 3, 4,
               "f32 tile sum whose trip count n = tl.load(n_ptr) is read from memory; tl.range num_stages=3"),
        Kernel("dynamic_trip_matmul", triton_ir_kernels.dynamic_trip_matmul,
               {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "k_ptr": "*i32", "stride_am": "i32",
                "stride_bk": "i32", "stride_cm": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
               {"BM": 64, "BN": 64, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "k_ptr", "stride_am", "stride_bk",
                                                 "stride_cm"], 3, 4,
               "f16 matmul whose number of K tiles is read from memory; 3 stages"),
        Kernel("flash_attention", triton_ir_kernels.flash_attention, attention_signature(True),
               {"BM": 64, "BN": 64, "HEAD": 64}, attention_divisible + ["seq_len"], 3, 4,
               "attention forward, online softmax: q loaded once, one loop over K/V blocks; 3 stages"),
        Kernel("causal_attention", triton_ir_kernels.causal_attention, attention_signature(False),
               {"BM": 64, "BN": 64, "HEAD": 64}, attention_divisible, 3, 4,
               "causal attention forward: a loop over the blocks left of the diagonal, then one over the "
               "masked diagonal blocks; 3 stages"),
    ]


def compile_kernel(kernel, capability):
    """Returns the allocated TTGIR, the PTX and the shared bytes of one kernel for one capability.

    Compiles twice: with line information for the TTGIR's `loc`s (Triton strips them all when
    line information is off), and without it for the PTX, whose DWARF sections would record the
    absolute paths of the source and of the working directory. The two TTGIRs must agree once
    their locations are dropped."""
    with_lines = compile_once(kernel, capability, line_info=True)
    without_lines = compile_once(kernel, capability, line_info=False)
    ptx = without_lines.asm["ptx"]
    version = ptx_version(ptx)
    ttgir = allocate_shared_memory(with_lines.asm["ttgir"], capability, version)
    if ttgir.str_nodebug() != allocate_shared_memory(without_lines.asm["ttgir"], capability, version).str_nodebug():
        sys.exit(f"foreign_ir: {kernel.name} sm_{capability}: line information changed the TTGIR")
    return relative_locations(str(ttgir)), ptx, without_lines.metadata.shared


def compile_once(kernel, capability, line_info):
    os.environ["TRITON_DISABLE_LINE_INFO"] = "0" if line_info else "1"
    attrs = {(list(kernel.signature).index(name),): DIVISIBLE for name in kernel.divisible}
    src = ASTSource(fn=kernel.fn, signature=kernel.signature, constexprs=kernel.constexprs, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", capability, 32),
                          options={"num_stages": kernel.num_stages, "num_warps": kernel.num_warps})


def ptx_version(ptx):
    """The PTX ISA version the compile targeted (`.version 8.7` -> 87), which the pass takes too."""
    match = re.search(r"^\.version (\d+)\.(\d+)", ptx, re.MULTILINE)
    return int(match.group(1)) * 10 + int(match.group(2))


def allocate_shared_memory(ttgir, capability, ptx):
    """Parses TTGIR back and runs Triton's shared-memory allocation pass on it, nothing else."""
    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir") as file:
        file.write(ttgir)
        file.flush()
        module = ir.parse_mlir_module(file.name, context)
    module.context = context
    manager = ir.pass_manager(context)
    nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(manager, capability, ptx)
    manager.run(module, "allocate_shared_memory")
    return module


def relative_locations(ttgir):
    """Source locations name files relative to the repository root, not the checkout's directory."""
    return ttgir.replace(f'loc("{ROOT}/', 'loc("')


def main():
    entries = []
    for kernel in matmul_kernels() + other_kernels():
        for capability in CAPABILITIES:
            ttgir, ptx, shared = compile_kernel(kernel, capability)
            stem = f"{kernel.name}_sm{capability}"
            if "ttg.async_copy_global_to_local" not in ttgir and "async_tma" not in ttgir:
                sys.exit(f"foreign_ir: {stem} has no asynchronous copy; the tiles or hints do not pipeline")
            for home in (ROOT, os.path.expanduser("~")):
                if len(home) > 1 and (home in ttgir or home in ptx):
                    sys.exit(f"foreign_ir: {stem} names the directory {home}")
            with open(os.path.join(OUT, f"{stem}.ttgir"), "w") as out:
                out.write(ttgir)
            with open(os.path.join(OUT, f"{stem}.ptx"), "w") as out:
                out.write(ptx)
            entries.append({
                "ttgir": f"{stem}.ttgir", "ptx": f"{stem}.ptx", "kernel": kernel.fn.fn.__name__,
                "capability": capability, "num_stages": kernel.num_stages, "num_warps": kernel.num_warps,
                "constexprs": kernel.constexprs, "shared": shared, "source": kernel.source(),
                "description": kernel.description,
            })
    manifest = {"triton": triton.__version__, "kernels": entries}
    with open(os.path.join(OUT, "kernels.json"), "w") as out:
        json.dump(manifest, out, indent=1)
        out.write("\n")
    print(f"foreign_ir: wrote {len(entries)} kernels into {OUT}")


if __name__ == "__main__":
    main()
