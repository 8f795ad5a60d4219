#!/usr/bin/env python3
"""Runs the compiler-emitted kernels of corpus/ptx-foreign on a GPU, and their mutants.

For a machine with an NVIDIA GPU and CuPy. Each launch of `kernels.json` runs with the inputs
and the reference that `ptx/tests/foreign.rs` uses on the emulator (small integers, so every
sum is exact in any order), REPEATS times. Then each mutant of the kernel (every
`cp.async.wait_group` loosened by one, every `bar.sync` right after a wait removed, as the
emulator's test makes them) runs REPEATS times, counting the runs whose output differs from
the reference: how often the hardware shows what the emulator's lazy schedule shows always.

Usage: gpu_foreign.py [--repeats N] [--json FILE]; prints one line per kernel and mutant.
"""

import argparse
import itertools
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FOREIGN = os.path.join(HERE, "..", "corpus", "ptx-foreign")


def input_values(length, salt):
    i = np.arange(length, dtype=np.int64)
    return ((i * 7 + salt * 3) % 9 - 4).astype(np.float64)


def reference(launch):
    """(index of the output parameter, its expected contents), as the emulator's test says."""
    params = launch["params"]

    def inp(index):
        return input_values(params[index]["len"], index)

    (kind, shape), = launch["reference"].items()
    if kind == "matmul":
        m, n, k = shape["m"], shape["n"], shape["k"]
        a, b = inp(0)[: m * k].reshape(m, k), inp(1)[: k * n].reshape(k, n)
        return 2, (a @ b).reshape(-1)
    if kind == "row_sum":
        rows, n, block = shape["rows"], shape["n"], shape["block"]
        x = inp(0)[: rows * n].reshape(rows, n // block, block)
        return 1, x.sum(axis=1).reshape(-1)
    if kind == "scale_neighbour":
        blocks, tiles, width = shape["blocks"], shape["tiles"], shape["width"]
        x = inp(0)[: blocks * tiles * width].reshape(-1, width)
        return 1, (2.0 * np.roll(x, -1, axis=1)).reshape(-1)
    if kind == "copy_plus_one":
        tiles, width, vector = shape["tiles"], shape["width"], shape["vector"]
        x = inp(0)[: tiles * width * vector].reshape(tiles, width, vector)
        if shape["neighbour"]:
            x = np.roll(x, -1, axis=1)
        return 1, (x + 1.0).reshape(-1)
    raise ValueError(f"no reference named {kind}")


def instruction(line):
    return line.strip().rstrip(";").strip()


def kernel_lines(lines, name):
    start = next(i for i, l in enumerate(lines) if ".entry " in l and l.split(".entry ")[1].startswith(name + "("))
    end = next((i for i in range(start + 1, len(lines)) if ".entry " in lines[i]), len(lines))
    return range(start, end)


def mutants(text, name):
    """(name, 1-based line, text) of every mutant, in the emulator's test's order and names."""
    lines = text.split("\n")
    found, waits, barriers = [], 0, 0
    for at in kernel_lines(lines, name):
        inst = instruction(lines[at])
        if inst.startswith("cp.async.wait_group"):
            count = inst[len("cp.async.wait_group"):].strip()
            cut = lines[at].rfind(count)
            changed = lines[:at] + [lines[at][:cut] + str(int(count) + 1) + lines[at][cut + len(count):]] + lines[at + 1:]
            found.append((f"wait #{waits} loosened", at + 1, "\n".join(changed)))
            waits += 1
        if inst.startswith("bar.sync"):
            before = [instruction(l) for l in lines[:at]]
            last = next((l for l in reversed(before) if l and not l.startswith("//")), "")
            if last.startswith("cp.async.wait_group") or last.startswith("cp.async.wait_all"):
                changed = lines[:at] + [""] + lines[at + 1:]
                found.append((f"barrier #{barriers} removed", at + 1, "\n".join(changed)))
            barriers += 1
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--json", help="write every result as JSON here")
    options = parser.parse_args()
    import cupy as cp

    dtypes = {"float16": np.float16, "float32": np.float32}
    manifest = json.load(open(os.path.join(FOREIGN, "kernels.json")))
    results = []
    case_numbers = itertools.count()
    with tempfile.TemporaryDirectory() as scratch:
        for launch in manifest["launches"]:
            text = open(os.path.join(FOREIGN, launch["file"])).read()
            output, expected = reference(launch)

            def runs(ptx_text, label):
                # A fresh name for every text: CuPy caches a module by its path.
                path = os.path.join(scratch, f"case{next(case_numbers)}.ptx")
                with open(path, "w") as f:
                    f.write(ptx_text)
                try:
                    function = cp.RawModule(path=path).get_function(launch["kernel"])
                except Exception as error:  # the driver's JIT refused the text
                    return {"kernel": f'{launch["file"]} {launch["kernel"]}', "case": label, "error": str(error)}
                args, buffers = [], {}
                for index, param in enumerate(launch["params"]):
                    if "buffer" in param:
                        host = input_values(param["len"], index).astype(dtypes[param["dtype"]])
                        buffers[index] = cp.asarray(host)
                        args.append(buffers[index])
                    else:
                        args.append({"u32": np.uint32, "u64": np.uint64}[param["scalar"]](param["value"]))
                wrong, worst = 0, 0.0
                for _ in range(options.repeats):
                    buffers[output].fill(np.nan)
                    function(tuple(launch["grid"]), tuple(launch["block"]), tuple(args), shared_mem=launch["shared"])
                    got = cp.asnumpy(buffers[output]).astype(np.float64)[: len(expected)]
                    if not np.array_equal(got, expected):
                        wrong += 1
                        differ = np.abs(np.nan_to_num(got, nan=1e30) - expected)
                        worst = max(worst, float(differ.max()))
                cp.cuda.Device().synchronize()
                return {
                    "kernel": f'{launch["file"]} {launch["kernel"]}',
                    "case": label,
                    "runs": options.repeats,
                    "wrong": wrong,
                    "largest_difference": worst,
                }

            results.append(runs(text, "as compiled"))
            for name, line, mutant_text in mutants(text, launch["kernel"]):
                results.append(runs(mutant_text, f"{name} (line {line})"))
    for r in results:
        if "error" in r:
            print(f'{r["kernel"]}: {r["case"]}: not loaded: {r["error"]}')
        else:
            print(f'{r["kernel"]}: {r["case"]}: {r["wrong"]} of {r["runs"]} runs wrong'
                  + (f' (largest difference {r["largest_difference"]:g})' if r["wrong"] else ""))
    if options.json:
        with open(options.json, "w") as f:
            json.dump(results, f, indent=1)
    originals_wrong = [r for r in results if r["case"] == "as compiled" and r.get("wrong", 1)]
    return 1 if originals_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
