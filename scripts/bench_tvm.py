#!/usr/bin/env python3
"""TVM 0.27's side of the pass benchmarks: InjectSoftwarePipeline on the TVM seeds' inputs and
CommonSubexprElim on their flattened, CSE'd forms, each timed by TVM's own PassTimingInstrument
over REPEAT runs (median), next to `tirproof opt --time --repeat REPEAT` on the same files.

    ./scripts/bench_tvm.sh [REPEAT]     # installs apache-tvm 0.27.0.post1 into third_party/tvm
"""

import statistics
import subprocess
import sys

import tvm
import tvm.s_tir
import tvm.tirx
from tvm.ir.instrument import PassTimingInstrument

SEEDS = ["seed_a", "seed_a_tx", "seed_b", "seed_c"]


def load(path):
    """The module a TVMScript file defines (a `Module` class, or a bare `main` function)."""
    with open(path) as source:
        # from_source provides `T` and `I` itself and refuses import statements.
        lines = [l for l in source if not l.startswith(("from ", "import "))]
    parsed = tvm.script.from_source("".join(lines))
    return parsed if isinstance(parsed, tvm.IRModule) else tvm.IRModule({"main": parsed})


def tvm_median_us(make_pass, module, repeat):
    """The median of TVM's own timing of the pass, in microseconds."""
    samples = []
    for _ in range(repeat):
        timing = PassTimingInstrument()
        with tvm.transform.PassContext(instruments=[timing]):
            make_pass()(module)
            profile = timing.render()
        # "Total time: 123.4us" and one line per pass: the pass's own line is the last one.
        line = [l for l in profile.splitlines() if ":" in l][-1]
        value = line.split(":")[1].split("us")[0].strip()
        samples.append(float(value))
    return statistics.median(samples)


def ours_median_us(binary, path, passes, repeat):
    """The median of `tirproof opt --time`, the lower of two runs (the first run of a fresh
    process is often slower: TVM's side is timed in a warm process too)."""
    medians = []
    for _ in range(2):
        run = subprocess.run([binary, "opt", path, "--passes", passes, "--time", "--repeat", str(repeat)],
                             capture_output=True, text=True, check=True)
        line = [l for l in run.stderr.splitlines() if "median" in l][-1]
        medians.append(float(line.split("median")[1].split("µs")[0]))
    return min(medians)


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    binary = sys.argv[2] if len(sys.argv) > 2 else "./target/release/tirproof"
    rows = []
    for seed in SEEDS:
        path = f"corpus/tvm/{seed}_input.py"
        theirs = tvm_median_us(tvm.s_tir.transform.InjectSoftwarePipeline, load(path), repeat)
        ours = ours_median_us(binary, path, "inject-software-pipeline", repeat)
        rows.append(("inject-software-pipeline", seed, ours, theirs))
    for seed in SEEDS:
        path = f"corpus/tvm/{seed}_after_flatten_cse.py"
        theirs = tvm_median_us(tvm.tirx.transform.CommonSubexprElim, load(path), repeat)
        ours = ours_median_us(binary, path, "cse", repeat)
        rows.append(("cse", seed, ours, theirs))
    print(f"| pass | input | tirproof (median µs) | TVM 0.27 (median µs) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, seed, ours, theirs in rows:
        print(f"| {name} | {seed} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
