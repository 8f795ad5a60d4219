#!/usr/bin/env python3
"""How `tirproof verify` scales with the program: time and peak memory against the number of
async groups, of waits, and the depth of nested pipelines. Generates the programs, runs the
release binary on each (one at a time), and draws docs/verify_scaling.svg with matplotlib.

    ./scripts/plot_scaling.sh            # builds, installs matplotlib into third_party/plot
    python3 scripts/plot_scaling.py BIN  # with a given binary and a Python that has matplotlib

The three families:
- straight-line groups: G stores of A[k] into shared S[k], each committed as its own group,
  then G reads of S[k], each under a wait for all groups (G groups, G waits);
- one group, many waits: one commit of G stores, then G waits each guarding one read;
- nested pipelines: a two-stage async pipeline whose body is again one, D levels deep, run
  through inject-software-pipeline first (the verifier sees the pass's output).
"""

import os
import subprocess
import sys
import tempfile
import time

HEADER = "# from tvm.script import tirx as T\n\n@T.prim_func\n"


def straight_line_groups(g):
    lines = [HEADER, f'def main(A: T.Buffer(({g},), "float32"), C: T.Buffer(({g},), "float32")):\n',
             f'    S = T.alloc_buffer(({g},), "float32", scope="shared")\n']
    for k in range(g):
        lines.append('    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):\n')
        lines.append(f"        S[{k}] = A[{k}]\n")
    for k in range(g):
        lines.append('    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):\n')
        lines.append(f"        C[{k}] = S[{k}]\n")
    return "".join(lines)


def one_group_many_waits(g):
    lines = [HEADER, f'def main(A: T.Buffer(({g},), "float32"), C: T.Buffer(({g},), "float32")):\n',
             f'    S = T.alloc_buffer(({g},), "float32", scope="shared")\n',
             '    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):\n',
             f"        for k in range({g}):\n", "            S[k] = A[k]\n"]
    for k in range(g):
        lines.append('    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):\n')
        lines.append(f"        C[{k}] = S[{k}]\n")
    return "".join(lines)


def nested_pipelines(depth):
    annotations = ('annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], '
                   '"software_pipeline_async_stages": [0]}')
    shape = ", ".join(["4"] * depth)
    lines = [HEADER, f'def main(A: T.Buffer(({shape},), "float32"), C: T.Buffer(({shape},), "float32")):\n']
    indent = "    "
    names = [f"i{d}" for d in range(depth)]
    for d in range(depth):
        lines.append(f"{indent}for {names[d]} in T.serial(4, {annotations}):\n")
        indent += "    "
        if d < depth - 1:
            # The outer stage-0 statement: a scalar staged through shared memory.
            lines.append(f'{indent}B{d} = T.alloc_buffer((1,), "float32", scope="shared")\n')
            index = ", ".join(names[: d + 1] + ["0"] * (depth - d - 1))
            lines.append(f"{indent}B{d}[0] = A[{index}]\n")
    index = ", ".join(names)
    lines.append(f'{indent}B = T.alloc_buffer((1,), "float32", scope="shared")\n')
    lines.append(f"{indent}B[0] = A[{index}] + T.float32(1.0)\n")
    lines.append(f"{indent}C[{index}] = B[0] + T.float32(1.0)\n")
    return "".join(lines)


def measure(binary, text, pipeline, scratch):
    """Seconds and peak megabytes of `tirproof verify` (best of 3, or of one run when that
    takes more than 10 s), whether it succeeded, and the lines of the program it verified."""
    source = os.path.join(scratch, "program.py")
    with open(source, "w") as out:
        out.write(text)
    if pipeline:
        target = os.path.join(scratch, "pipelined.py")
        subprocess.run([binary, "opt", source, "--passes", "inject-software-pipeline", "-o", target],
                       check=True, capture_output=True)
        source = target
    with open(source) as verified:
        lines = sum(1 for _ in verified)
    best = None
    for _ in range(3):
        if best is not None and best[0] > 10:
            break
        start = time.perf_counter()
        run = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "verify", source],
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        peak_mb = int(run.stderr.strip().splitlines()[-1]) * 1024 / 1e6
        if best is None or seconds < best[0]:
            best = (seconds, peak_mb, run.returncode)
    return best + (lines,)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "./target/release/tirproof"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = [
        ("straight-line groups (G groups, G waits)", "G", [10, 30, 100, 300, 1000, 3000], straight_line_groups, False),
        ("one group, G waits", "G", [10, 30, 100, 300, 1000, 3000], one_group_many_waits, False),
        ("nested two-stage pipelines, depth 1-7, pass output", "lines of the pass output", [1, 2, 3, 4, 5, 6, 7],
         nested_pipelines, True),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    with tempfile.TemporaryDirectory() as scratch:
        for col, (title, unit, sizes, make, pipeline) in enumerate(families):
            points = []
            for size in sizes:
                seconds, peak_mb, code, lines = measure(binary, make(size), pipeline, scratch)
                # Nesting is drawn against the size of what is verified (it grows 2x per level).
                x = lines if pipeline else size
                points.append((x, seconds, peak_mb))
                print(f"{title}: size {size} ({lines} lines): {seconds * 1e3:.1f} ms, {peak_mb:.0f} MB (exit {code})")
            xs = [p[0] for p in points]
            axes[0][col].plot(xs, [p[1] * 1e3 for p in points], "o-")
            axes[1][col].plot(xs, [p[2] for p in points], "o-", color="tab:orange")
            axes[0][col].set_title(title, fontsize=10)
            axes[0][col].set_ylabel("time (ms)")
            axes[1][col].set_ylabel("peak memory (MB)")
            axes[1][col].set_xlabel(unit)
            for row in axes:
                row[col].set_xscale("log")
                row[col].set_yscale("log")
            # A line of slope 1 through the first point: a near-linear curve runs parallel to it.
            x0, t0 = xs[0], points[0][1] * 1e3
            axes[0][col].plot([x0, xs[-1]], [t0, t0 * xs[-1] / x0], ":", color="gray", label="linear")
            axes[0][col].legend(fontsize=8)
    fig.suptitle("tirproof verify: time and peak memory against program size (release build, best of 3)")
    fig.tight_layout()
    out = os.path.join("docs", "verify_scaling.svg")
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
