#!/usr/bin/env python3
"""tirproof's pipeline pass and TVM 0.27's InjectSoftwarePipeline side by side, on the same
inputs, in one run: the TVM seeds and N programs a campaign generates (`tirproof generate`).

For each input: the time of each pass (ours: `tirproof opt --time --repeat R`, the median;
TVM's: its own PassTimingInstrument, the median of R runs), and the verdict on each output
(ours: `tirproof oracles --oracle pipeline --oracle equivalence --oracle waits-tight`, which
runs the output against the input under the lazy, eager and a random schedule and proves every
wait safe and tight; TVM's: `tirproof oracles --oracle tvm --peer tvm`, the same judgement of
TVM's output, or TVM's error). Prints a markdown table per seed and one for the programs.

    ./scripts/tvm_side_by_side.sh [N] [REPEAT] [SEED]
"""

import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile

import tvm
import tvm.s_tir
from tvm.ir.instrument import PassTimingInstrument

SEEDS = ["seed_a", "seed_a_tx", "seed_b", "seed_c"]


def load(path):
    with open(path) as source:
        return load_text(source.read())


def tvm_time_us(module, repeat):
    """TVM's median time of InjectSoftwarePipeline on `module`, or the exception it raises."""
    samples = []
    for _ in range(repeat):
        timing = PassTimingInstrument()
        with tvm.transform.PassContext(instruments=[timing]):
            tvm.s_tir.transform.InjectSoftwarePipeline()(module)
            profile = timing.render()
        line = [l for l in profile.splitlines() if ":" in l][-1]
        samples.append(float(line.split(":")[1].split("us")[0].strip()))
    return statistics.median(samples)


def ours_time_us(binary, path, repeat):
    run = subprocess.run([binary, "opt", path, "--passes", "inject-software-pipeline", "--time", "--repeat", str(repeat)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None
    line = [l for l in run.stderr.splitlines() if "median" in l][-1]
    return float(line.split("median")[1].split("µs")[0])


def verdict(binary, path, oracles, peer=False):
    """The first failing oracle's class; `clean` when every oracle asked for passed; `refused by
    tirproof` (its pass refused the input, with located diagnostics); otherwise why the last
    oracle asked for did not judge it."""
    args = [binary, "oracles", path, "--may-be-refused"]
    for oracle in oracles:
        args += ["--oracle", oracle]
    if peer:
        args += ["--peer", "tvm"]
    run = subprocess.run(args, capture_output=True, text=True)
    failed = re.search(r"FAIL (\S+)", run.stdout)
    if failed:
        return failed.group(1).split("/", 1)[1]
    last = oracles[-1]
    if re.search(rf"^{re.escape(last)}: pass", run.stdout, re.M):
        return "clean"
    skipped = re.search(r"^(\S+): skipped: (.*)$", run.stdout, re.M)
    if skipped:
        return "not judged: " + skipped.group(2)
    return "refused by tirproof (located diagnostics)"


def tvm_module_of(binary, path):
    """The module TVM is given for `path`: the S-TIR form the peer oracle sends (`fmt --for-tvm`)."""
    run = subprocess.run([binary, "fmt", path, "--for-tvm"], capture_output=True, text=True, check=True)
    return load_text(run.stdout)


def load_text(text):
    lines = [line for line in text.splitlines(keepends=True) if not line.startswith(("from ", "import "))]
    parsed = tvm.script.from_source("".join(lines))
    return parsed if isinstance(parsed, tvm.IRModule) else tvm.IRModule({"main": parsed})


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    binary = sys.argv[4] if len(sys.argv) > 4 else "./target/release/tirproof"
    ours_oracles = ["pipeline", "equivalence", "waits-tight"]

    print(f"TVM {tvm.__version__}; medians of {repeat} runs; tirproof's verdict: pipeline, equivalence, waits-tight; "
          "TVM's: the tvm oracle\n")
    print("| input | tirproof | TVM 0.27 | ratio | tirproof's output | TVM's output |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in SEEDS:
        path = f"corpus/tvm/{name}_input.py"
        ours = ours_time_us(binary, path, repeat)
        theirs = tvm_time_us(load(path), repeat)
        print(f"| {name} | {ours:.1f} µs | {theirs:.1f} µs | {theirs / ours:.1f}x | "
              f"{verdict(binary, path, ours_oracles)} | {verdict(binary, path, ['tvm'], peer=True)} |")

    scratch = tempfile.mkdtemp()
    subprocess.run([binary, "generate", "--seed", str(seed), "--count", str(count * 2), "--out", scratch],
                   check=True, capture_output=True)
    files = sorted(os.listdir(scratch), key=lambda f: int(f.split("-")[1].split(".")[0]))[:count]
    ours_verdicts = collections.Counter()
    tvm_verdicts = collections.Counter()
    ratios, ours_times, tvm_times = [], [], []
    for name in files:
        path = os.path.join(scratch, name)
        ours_v = verdict(binary, path, ours_oracles)
        tvm_v = verdict(binary, path, ["tvm"], peer=True)
        ours_verdicts[ours_v] += 1
        tvm_verdicts[tvm_v] += 1
        if ours_v == "clean" and not tvm_v.startswith(("tvm:pass-raised", "refused", "not judged")):
            module = tvm_module_of(binary, path)
            ours = ours_time_us(binary, path, repeat // 10 or 1)
            try:
                theirs = tvm_time_us(module, repeat // 10 or 1) if module is not None else None
            except Exception:  # noqa: BLE001 - TVM's errors are not all of one class
                theirs = None  # raised where the oracle's run did not get that far: not timed
            if theirs is not None and ours:
                ours_times.append(ours)
                tvm_times.append(theirs)
                ratios.append(theirs / ours)
    print(f"\n{len(files)} generated pass inputs (`tirproof generate --seed {seed}`):\n")
    print("| verdict | tirproof's pass | TVM's pass |")
    print("| --- | --- | --- |")
    for key in sorted(set(ours_verdicts) | set(tvm_verdicts)):
        print(f"| {key} | {ours_verdicts.get(key, 0)} | {tvm_verdicts.get(key, 0)} |")
    if ratios:
        print(f"\nTime on the {len(ratios)} programs both passes transform: tirproof median "
              f"{statistics.median(ours_times):.1f} µs, TVM median {statistics.median(tvm_times):.1f} µs, "
              f"ratio median {statistics.median(ratios):.1f}x (min {min(ratios):.1f}x, max {max(ratios):.1f}x)")


if __name__ == "__main__":
    main()
