#!/usr/bin/env python3
"""Recomputes the `num` of every `ttg.async_wait` of a TTGIR module with Triton's own rule.

Reads TTGIR (a path, or stdin without one or with `-`), runs Triton's pipeline pass with
num_stages = 0 and prints the module to stdout. With num_stages <= 1 the pass pipelines no loop
(nor wgmma) and only runs its wait-count update (`updateWaits`: merges back-to-back waits, then
sets each wait's `num` to the number of commit groups that may stay in flight while the groups
of its tokens complete; a wait without tokens gets 0) and the arithmetic canonicalization that
follows it. Whatever `num` the input carries is overwritten (the parser requires the attribute,
so a wait to be recomputed needs some `num`, e.g. 0). A module whose waits already carry Triton's
counts comes back unchanged apart from merged waits. One exception: a loop that still carries
its own `tt.num_stages` > 1 (from `tl.range(..., num_stages=...)`) and an MMAv3 dot has its dot
made asynchronous again, as the pass does for loops it pipelines.

Runs with the Triton of third_party/foreign (scripts/foreign_ir.sh installs it):

    third_party/foreign/bin/python scripts/triton_wait_pass.py corpus/ttgir/matmul_f16_s3_sm80.ttgir

Exits 1 with a message when the input does not parse or the pass fails.
"""

import os
import sys
import tempfile

from triton._C.libtriton import ir, nvidia, passes


def read_input(argv):
    if len(argv) > 2:
        sys.exit("usage: triton_wait_pass.py [FILE.ttgir | -]")
    if len(argv) == 2 and argv[1] != "-":
        with open(argv[1]) as file:
            return argv[1], file.read()
    return "<stdin>", sys.stdin.read()


def parse(name, text, context):
    """Triton's binding parses only files; a parse failure is reported as an exception."""
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as file:
        file.write(text)
        path = file.name
    try:
        module = ir.parse_mlir_module(path, context)
    except Exception as error:  # the binding raises a bare RuntimeError or similar
        sys.exit(f"triton_wait_pass: {name} does not parse as TTGIR: {error}".replace(path, name))
    finally:
        os.unlink(path)
    module.context = context
    return module


def main():
    name, text = read_input(sys.argv)
    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    module = parse(name, text, context)
    manager = ir.pass_manager(context)
    passes.ttgpuir.add_pipeline(manager, 0, False)
    try:
        manager.run(module, "update_async_wait_count")
    except Exception as error:
        sys.exit(f"triton_wait_pass: the pass failed on {name}: {error}")
    sys.stdout.write(str(module))


if __name__ == "__main__":
    main()
