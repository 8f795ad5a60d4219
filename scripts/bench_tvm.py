#!/usr/bin/env python3
"""TVM 0.27's side of the pass benchmarks: InjectSoftwarePipeline on the TVM seeds' inputs (and a
generated 64-statement loop) and CommonSubexprElim on the seeds flattened by TVM
(LowerOpaqueBlock and FlattenBuffer of their pipelined forms, printed by TVM: CSE's input in
TVM's own lowering), each timed by TVM's own PassTimingInstrument over REPEAT runs (median),
next to `tirproof opt --time --repeat REPEAT` on the same files.

    ./scripts/bench_tvm.sh [REPEAT] [ROUNDS]    # installs apache-tvm 0.27.0.post1 into third_party/tvm

Every input is measured ROUNDS times (default 5), TVM's side right after ours each time, and
the table gives the median of each side and the median of the per-round ratios with their
range: on a shared machine one side's process can run at half speed for a minute, and a ratio
taken within one round is what the two sides share.
"""

import os
import statistics
import subprocess
import sys
import tempfile

import tvm
import tvm.s_tir
import tvm.tirx
from tvm.ir.instrument import PassTimingInstrument

SEEDS = ["seed_a", "seed_a_tx", "seed_b", "seed_c"]


def chain(n):
    """A loop of `n` statements in TVM's S-TIR form: a chain through shared scalars, the first
    half in stage 0 (async), the second in stage 1."""
    stages = [0 if k < n // 2 else 1 for k in range(n)]
    lines = [
        "# from tvm.script import tirx as T\n\n@T.prim_func(s_tir=True)\n",
        'def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):\n',
        f'    for i in T.serial(0, 16, annotations={{"software_pipeline_stage": {stages}, '
        f'"software_pipeline_order": {list(range(n))}, "software_pipeline_async_stages": [0]}}):\n',
        '        with T.sblock("compute"):\n',
        "            T.reads(A[i])\n",
        "            T.writes(D[i])\n",
    ]
    for k in range(n - 1):
        lines.append(f'            B{k} = T.sblock_alloc_buffer((1,), "float32", scope="shared")\n')
    for k in range(n):
        source = "A[i]" if k == 0 else f"B{k - 1}[0]"
        target = "D[i]" if k == n - 1 else f"B{k}[0]"
        lines += [
            "            with T.sblock():\n",
            f"                T.reads({source})\n",
            f"                T.writes({target})\n",
            f"                {target} = {source} + T.float32(1)\n",
        ]
    return "".join(lines)


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


def measure(rounds, ours, theirs):
    """`rounds` back-to-back measurements of both sides: (our median, their median, the median
    ratio, the lowest ratio, the highest ratio)."""
    pairs = []
    for _ in range(rounds):
        mine = ours()
        pairs.append((mine, theirs()))
    ratios = sorted(t / o for o, t in pairs)
    return (statistics.median(o for o, _ in pairs), statistics.median(t for _, t in pairs),
            statistics.median(ratios), ratios[0], ratios[-1])


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    binary = sys.argv[2] if len(sys.argv) > 2 else "./target/release/tirproof"
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    rows = []
    scratch = tempfile.mkdtemp()
    long_loop = os.path.join(scratch, "chain64_input.py")
    with open(long_loop, "w") as out:
        out.write(chain(64))
    inputs = [(seed, f"corpus/tvm/{seed}_input.py") for seed in SEEDS] + [("64-statement loop", long_loop)]
    for name, path in inputs:
        module = load(path)
        rows.append(("inject-software-pipeline", name, *measure(
            rounds,
            lambda: ours_median_us(binary, path, "inject-software-pipeline", repeat),
            lambda: tvm_median_us(tvm.s_tir.transform.InjectSoftwarePipeline, module, repeat))))
    flatten = tvm.transform.Sequential([tvm.s_tir.transform.LowerOpaqueBlock(), tvm.tirx.transform.FlattenBuffer()])
    for seed in SEEDS:
        path = os.path.join(scratch, f"{seed}_flattened.py")
        with open(path, "w") as out:
            out.write(flatten(load(f"corpus/tvm/{seed}_after_pipeline.py")).script())
        module = load(path)
        rows.append(("cse", seed, *measure(
            rounds,
            lambda: ours_median_us(binary, path, "cse", repeat),
            lambda: tvm_median_us(tvm.tirx.transform.CommonSubexprElim, module, repeat))))
    print(f"{rounds} rounds of {repeat} runs a side; medians over the rounds")
    print("| pass | input | tirproof (median µs) | TVM 0.27 (median µs) | ratio (median of rounds) | ratio range |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, seed, ours, theirs, ratio, low, high in rows:
        print(f"| {name} | {seed} | {ours:.1f} | {theirs:.1f} | {ratio:.1f}x | {low:.1f}x-{high:.1f}x |")


if __name__ == "__main__":
    main()
