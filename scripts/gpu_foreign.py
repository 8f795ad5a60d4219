#!/usr/bin/env python3
"""Runs the compiler-emitted kernels of corpus/ptx-foreign on a GPU, and their mutants.

For a machine with an NVIDIA GPU, NumPy and CuPy. Each launch of `kernels.json` runs with the
inputs, the reference and the tolerance that `ptx/tests/foreign.rs` uses on the emulator (small
integers, so every sum is exact in any order; attention within the test's error bound), REPEATS
times. Then each mutant of the kernel, made as that test makes them and under the same name
(every wait of every queue loosened by one, every `fence.proxy.async` removed, every mbarrier
wait removed, every `bar.sync` right after a wait or a fence removed), runs REPEATS times,
counting the runs whose output is not the reference: how often the hardware shows what the
emulator's lazy schedule shows always. The names and lines join with the emulator's verdicts.
Every buffer is reset before each run; an output the test starts with input values starts as
NaN here instead, so that an element the kernel never writes counts as wrong.

Each run is watched: a launch that has not finished within WATCHDOG seconds (a mutant without
its mbarrier wait can spin forever) is reported as a hang and its remaining repeats are not
run. Each launch's cases run in a child process, so a hung or faulted context takes down only
that child; the next case starts in a fresh one.

Two ways to load the kernels:
- the driver's JIT (default): every text is loaded as PTX. A driver older than the PTX ISA of a
  file (Triton's sm_90a files are PTX ISA 9.4) refuses it, and the case is reported not loaded.
- cubins assembled beforehand (`--cubins DIR`), written on any machine with a recent ptxas by
  `scripts/gpu_foreign_cubins.sh DIR` (which calls `--build-cubins`). sm_90a files assemble for
  sm_90a; files of a generic target (sm_80) assemble for sm_90, the H100/H200, on which an sm_80
  cubin does not run. The index records each text's hash, so cubins of other texts are refused.

On the device (the cubins built first, here `.gpu/cubins`):
    python3 scripts/gpu_foreign.py --cubins .gpu/cubins --repeats 100 --json OUT/foreign.json

Modes that need no GPU (and, but for --self-check, no NumPy):
    --list-mutants        every launch's mutants, name and 1-based line
    --self-check          the references against literal translations of the test's loops
    --build-cubins DIR    assemble every text with --ptxas (see gpu_foreign_cubins.sh)

Prints one line per kernel and mutant; --json FILE writes everything. Exits 1 when a kernel
as compiled is ever wrong, hangs or does not load.
"""

import argparse
import hashlib
import json
import math
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
FOREIGN = os.path.join(HERE, "..", "corpus", "ptx-foreign")
AS_COMPILED = "as compiled"
# Shared memory a kernel gets without opting in to more.
DEFAULT_DYNAMIC_SHARED = 48 * 1024
# cuFuncSetAttribute's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, should CuPy not name it.
# The architecture of the device; a generic target's PTX assembles for it.
DEVICE_ARCH = "sm_90"


def manifest():
    with open(os.path.join(FOREIGN, "kernels.json")) as f:
        return json.load(f)


def text_of(launch):
    with open(os.path.join(FOREIGN, launch["file"])) as f:
        return f.read()


def label(launch):
    return f'{launch["file"]} {launch["kernel"]}'


# --- Inputs, references and tolerance, as ptx/tests/foreign.rs computes them -----------------


def input_values(length, salt):
    """Small integers, so that every sum of products is exact in f32 whatever the order."""
    return [float((i * 7 + salt * 3) % 9) - 4.0 for i in range(length)]


def buffer_values(param, index):
    """The values of buffer parameter `index` before the launch."""
    fill = param.get("fill")
    if fill is None:
        return input_values(param["len"], index)
    if fill == "zeros":
        return [0.0] * param["len"]
    if isinstance(fill, list):
        return [float(v) for v in fill]
    raise ValueError(f"no fill named {fill!r}")


def reference(launch):
    """(index of the output parameter, its expected contents as float64), vectorised."""
    import numpy as np

    params = launch["params"]

    def inp(index):
        if "buffer" not in params[index]:
            raise ValueError(f"parameter {index} is a scalar, not a buffer")
        return np.array(buffer_values(params[index], index), dtype=np.float64)

    ((kind, shape),) = launch["reference"].items()
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
    if kind == "tile_sum":
        rows, tiles, block, width = shape["rows"], shape["tiles"], shape["block"], shape["width"]
        x = inp(0)[: rows * tiles * block * width].reshape(rows, tiles, block, width)
        return 2, x.sum(axis=1).reshape(-1)
    if kind == "attention":
        seq, heads, dim = shape["seq"], shape["heads"], shape["head_dim"]
        scale, causal = shape["scale"], shape["causal"]
        q, k, v = (inp(i)[: heads * seq * dim].reshape(heads, seq, dim) for i in range(3))
        scores = scale * np.einsum("hid,hjd->hij", q, k)
        if causal:
            later = np.triu(np.ones((seq, seq), dtype=bool), k=1)
            scores = np.where(later, -np.inf, scores)
        weights = np.exp(scores - scores.max(axis=2, keepdims=True))
        out = np.einsum("hij,hjd->hid", weights, v) / weights.sum(axis=2, keepdims=True)
        return 3, out.reshape(-1)
    raise ValueError(f"no reference named {kind}")


def literal_reference(launch):
    """The test's loops, line by line in plain Python: what --self-check compares against."""
    params = launch["params"]

    def inp(index):
        return buffer_values(params[index], index)

    ((kind, s),) = launch["reference"].items()
    if kind == "matmul":
        m, n, k = s["m"], s["n"], s["k"]
        a, b = inp(0), inp(1)
        return 2, [sum(a[(at // n) * k + x] * b[x * n + at % n] for x in range(k)) for at in range(m * n)]
    if kind == "row_sum":
        rows, n, block = s["rows"], s["n"], s["block"]
        x = inp(0)
        return 1, [sum(x[(at // block) * n + c * block + at % block] for c in range(n // block))
                   for at in range(rows * block)]
    if kind == "scale_neighbour":
        blocks, tiles, width = s["blocks"], s["tiles"], s["width"]
        x = inp(0)
        return 1, [2.0 * x[(at // width) * width + (at % width + 1) % width] for at in range(blocks * tiles * width)]
    if kind == "copy_plus_one":
        tiles, width, vector = s["tiles"], s["width"], s["vector"]
        x = inp(0)
        out = []
        for at in range(tiles * width * vector):
            tile, t, v = at // (width * vector), at // vector % width, at % vector
            source = (t + 1) % width if s["neighbour"] else t
            out.append(x[(tile * width + source) * vector + v] + 1.0)
        return 1, out
    if kind == "tile_sum":
        rows, tiles, block, width = s["rows"], s["tiles"], s["block"], s["width"]
        x = inp(0)
        out = []
        for at in range(rows * block * width):
            r, i, j = at // (block * width), at // width % block, at % width
            out.append(sum(x[r * tiles * block * width + (t * block + i) * width + j] for t in range(tiles)))
        return 2, out
    if kind == "attention":
        seq, heads, dim, scale = s["seq"], s["heads"], s["head_dim"], s["scale"]
        q, k, v = inp(0), inp(1), inp(2)
        out = [0.0] * (heads * seq * dim)
        for h in range(heads):
            def at(mat, row, d):
                return mat[(h * seq + row) * dim + d]

            for i in range(seq):
                keys = i + 1 if s["causal"] else seq
                scores = [scale * sum(at(q, i, d) * at(k, j, d) for d in range(dim)) for j in range(keys)]
                top = max(scores)
                weights = [math.exp(x - top) for x in scores]
                total = sum(weights)
                for d in range(dim):
                    out[(h * seq + i) * dim + d] = sum(w * at(v, j, d) for j, w in enumerate(weights)) / total
        return 3, out
    raise ValueError(f"no reference named {kind}")


def tolerance(launch, expected):
    """The test's allowed error at each element: the attention bound, else exact (0).

    Attention: (2^-11 + 2^-15) (max|v| + |o|), max|v| = 4 (ptx/tests/foreign.rs explains it).
    """
    import numpy as np

    if "attention" in launch["reference"]:
        largest_v = 4.0
        return (2.0 ** -11 + 2.0 ** -15) * (largest_v + np.abs(expected))
    return np.zeros_like(expected)


# --- Buffers in the device's types ------------------------------------------------------------


def to_bfloat16_bits(values):
    """bfloat16's bits (uint16) of float64 values, rounded to nearest even through float32."""
    import numpy as np

    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bfloat16_bits(bits):
    import numpy as np

    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def host_buffer(dtype, values):
    """The bytes a buffer of `dtype` holds, as a NumPy array (bfloat16 as its uint16 bits)."""
    import numpy as np

    if dtype == "bfloat16":
        return to_bfloat16_bits(values)
    types = {"float16": np.float16, "float32": np.float32, "int32": np.int32, "uint8": np.uint8}
    if dtype not in types:
        raise ValueError(f"no dtype {dtype} in the manifest's vocabulary")
    return np.asarray(values, dtype=np.float64).astype(types[dtype])


def as_float64(dtype, host):
    import numpy as np

    if dtype == "bfloat16":
        return from_bfloat16_bits(host)
    return np.asarray(host).astype(np.float64)


def scalar_argument(param):
    """A scalar's value in its declared type; `value` holds the bits (an f32's too)."""
    import numpy as np

    kind, bits = param["scalar"], param["value"]
    if kind == "u32":
        return np.uint32(bits)
    if kind == "u64":
        return np.uint64(bits)
    if kind == "f32":
        return np.array([bits], dtype=np.uint32).view(np.float32)[0]
    raise ValueError(f"a scalar of type {kind}")


# --- Mutants, as ptx/tests/foreign.rs's `mutants()` makes them --------------------------------


def text_lines(text):
    """Rust's `str::lines`: split at \\n, no empty piece after a final newline, \\r dropped."""
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    return [p[:-1] if p.endswith("\r") else p for p in pieces]


def instruction(line):
    """A line's instruction without its guard (`@%p2`, `@!%p2`) and its `;`."""
    inst = line.strip().rstrip(";").strip()
    if inst.startswith("@"):
        parts = inst.split(None, 1)
        return parts[1].strip() if len(parts) == 2 else ""
    return inst


def kernel_lines(lines, name):
    """The 0-based lines of kernel `name`: from its `.entry` to the next one or the end."""
    start = next(
        (i for i, l in enumerate(lines) if ".entry " in l and l.split(".entry ")[1].startswith(name + "(")), None
    )
    if start is None:
        raise ValueError(f"no kernel {name}")
    end = next((i for i in range(start + 1, len(lines)) if ".entry " in lines[i]), len(lines))
    return range(start, end)


# The waits whose count a mutant loosens: the instruction's prefix and the mutant's name for it,
# in the test's order (the first prefix that matches wins).
QUEUE_WAITS = [
    ("cp.async.wait_group", "wait"),
    ("wgmma.wait_group.sync.aligned", "wgmma wait"),
    ("cp.async.bulk.wait_group.read", "bulk read wait"),
    ("cp.async.bulk.wait_group", "bulk wait"),
]

ASYNC_WAITS_AND_FENCES = (
    "cp.async.wait_group",
    "cp.async.wait_all",
    "wgmma.wait_group",
    "cp.async.bulk.wait_group",
    "fence.proxy.async",
)


def previous_instruction(lines, at):
    """The instruction before line `at` (in the whole file), skipping blanks and comments."""
    for line in reversed(lines[:at]):
        inst = instruction(line)
        if inst and not inst.startswith("//"):
            return inst
    return None


def mutants(text, name):
    """(name, 1-based line, text) of every mutant of kernel `name`, in the test's order."""
    lines = text_lines(text)
    span = kernel_lines(lines, name)

    def changed(cleared, replacement=None):
        out = list(lines)
        for k in cleared:
            out[k] = ""
        if replacement is not None:
            out[cleared.start] = replacement
        return "\n".join(out) + "\n"

    found, waits = [], {}
    barriers = fences = mbarrier_waits = 0
    for at in span:
        line = lines[at]
        inst = instruction(line)
        queue = next(((prefix, kind) for prefix, kind in QUEUE_WAITS if inst.startswith(prefix)), None)
        if queue is not None:
            prefix, kind = queue
            count = inst[len(prefix):].strip()
            if count and all(c in "0123456789" for c in count):
                count = int(count)
                cut = line.rfind(str(count))
                loosened = line[:cut] + str(count + 1) + line[cut + len(str(count)):]
                k = waits.get(kind, 0)
                found.append((f"{kind} #{k} loosened", at + 1, changed(range(at, at + 1), loosened)))
                waits[kind] = k + 1
        if inst.startswith("fence.proxy.async"):
            found.append((f"fence #{fences} removed", at + 1, changed(range(at, at + 1))))
            fences += 1
        if inst.startswith("mbarrier.try_wait") or inst.startswith("mbarrier.test_wait"):
            # The wait and the loop around it: the inline block from its `{` to its `}`.
            opening = next((k for k in range(at - 1, span.start - 1, -1) if lines[k].strip() == "{"), None)
            closing = next((k for k in range(at, span.stop) if lines[k].strip() == "}"), None)
            if opening is not None and closing is not None:
                found.append((f"mbarrier wait #{mbarrier_waits} removed", at + 1, changed(range(opening, closing + 1))))
            mbarrier_waits += 1
        if inst.startswith("bar.sync"):
            before = previous_instruction(lines, at)
            if before is not None and before.startswith(ASYNC_WAITS_AND_FENCES):
                found.append((f"barrier #{barriers} removed", at + 1, changed(range(at, at + 1))))
            barriers += 1
    return found


def cases(launch):
    """The launch's texts to run: (case name, 1-based line or None, text), as compiled first."""
    text = text_of(launch)
    return [(AS_COMPILED, None, text)] + mutants(text, launch["kernel"])


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


# --- Cubins -------------------------------------------------------------------------------


def target_of(text):
    found = re.search(r"^\s*\.target\s+([A-Za-z0-9_]+)", text, re.MULTILINE)
    if not found:
        raise ValueError("no .target")
    return found.group(1)


def cubin_arch(target):
    """The architecture to assemble for: an arch-specific target (sm_90a) as it is; a generic
    one (sm_80) for the device, whose PTX assembles there with the same meaning."""
    return target if target.endswith("a") else DEVICE_ARCH


def build_cubins(out_dir, ptxas, jobs):
    os.makedirs(out_dir, exist_ok=True)
    version = [l for l in subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.splitlines()
               if "release" in l]
    entries = []
    for number, launch in enumerate(manifest()["launches"]):
        stem = os.path.splitext(launch["file"])[0]
        for k, (name, line, text) in enumerate(cases(launch)):
            target = target_of(text)
            entries.append({
                "file": launch["file"], "kernel": launch["kernel"], "case": name, "line": line,
                "target": target, "arch": cubin_arch(target), "ptx_sha256": sha256(text),
                "cubin": f"{number:02d}-{stem}-{launch['kernel']}-{k:02d}.cubin", "text": text,
            })

    with tempfile.TemporaryDirectory() as scratch:
        def assemble(entry):
            source = os.path.join(scratch, entry["cubin"][: -len(".cubin")] + ".ptx")
            with open(source, "w") as f:
                f.write(entry.pop("text"))
            done = subprocess.run([ptxas, "-arch", entry["arch"], source, "-o", os.path.join(out_dir, entry["cubin"])],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                entry["error"] = (done.stderr or done.stdout).strip().replace(source, entry["file"])
                entry["cubin"] = None

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(assemble, entries))
    with open(os.path.join(out_dir, "index.json"), "w") as f:
        json.dump({"ptxas": version[-1] if version else "unknown", "cases": entries}, f, indent=1)
    failed = [e for e in entries if e.get("error")]
    for e in failed:
        print(f'{e["file"]} {e["kernel"]}: {e["case"]}: not assembled: {e["error"]}', file=sys.stderr)
    originals = [e for e in failed if e["case"] == AS_COMPILED]
    print(f"{len(entries) - len(failed)} of {len(entries)} texts assembled into {out_dir}"
          + (f"; {len(originals)} kernels as compiled did not assemble" if originals else ""))
    return 1 if originals else 0


def cubin_index(cubins, launch):
    """The launch's cases in the index, keyed by case name."""
    with open(os.path.join(cubins, "index.json")) as f:
        index = json.load(f)
    return {e["case"]: e for e in index["cases"] if e["file"] == launch["file"] and e["kernel"] == launch["kernel"]}


# --- On the device --------------------------------------------------------------------------


class Hang(Exception):
    pass


def run_case(cp, function, launch, repeats, watchdog):
    """Runs `function` REPEATS times from fresh buffers; counts the runs not within tolerance."""
    import numpy as np

    output, expected = reference(launch)
    bound = tolerance(launch, expected)
    stream = cp.cuda.Stream(non_blocking=True)
    args, buffers, initial = [], {}, {}
    for index, param in enumerate(launch["params"]):
        if "buffer" in param:
            host = host_buffer(param["dtype"], buffer_values(param, index))
            if index == output and param.get("fill") is None and param["dtype"].startswith(("float", "bfloat")):
                # NaN where the test has its inputs: an element the kernel never writes is wrong.
                host = host_buffer(param["dtype"], [float("nan")] * param["len"])
            initial[index] = host
            buffers[index] = cp.asarray(host)
            args.append(buffers[index])
        else:
            args.append(scalar_argument(param))
    out_dtype = launch["params"][output]["dtype"]
    result = {"runs": 0, "wrong": 0, "max_error": 0.0, "non_finite_runs": 0, "hang": False}
    for _ in range(repeats):
        for index, host in initial.items():
            buffers[index].set(host, stream=stream)
        function(tuple(launch["grid"]), tuple(launch["block"]), tuple(args), shared_mem=launch["shared"],
                 stream=stream)
        deadline = time.monotonic() + watchdog
        while not stream.done:
            if time.monotonic() > deadline:
                result["hang"] = True
                raise Hang(result)
            time.sleep(0.0001)
        got = as_float64(out_dtype, buffers[output].get(stream=stream))
        result["runs"] += 1
        if got.shape != expected.shape:
            raise ValueError(f"{got.size} elements, the reference has {expected.size}")
        error = np.abs(got - expected)
        finite = np.isfinite(error)
        if not finite.all():
            result["non_finite_runs"] += 1
        if finite.any():
            result["max_error"] = max(result["max_error"], float(error[finite].max()))
        # As the test: !(|got - want| <= bound), so NaN is wrong.
        if not (error <= bound).all():
            result["wrong"] += 1
    return result


def child(options):
    """Runs cases START.. of launch NUMBER, one JSON line each; exits at a hang or an error."""
    import cupy as cp

    launch = manifest()["launches"][options.child]
    all_cases = cases(launch)
    index = cubin_index(options.cubins, launch) if options.cubins else None
    scratch = tempfile.TemporaryDirectory()

    def report(number, **fields):
        name, line, _ = all_cases[number]
        print(json.dumps({"number": number, "case": name, "line": line, **fields}), flush=True)

    def load(path):
        function = cp.RawModule(path=path).get_function(launch["kernel"])
        if launch["shared"] > DEFAULT_DYNAMIC_SHARED:
            # More than 48 KiB of dynamic shared memory must be asked for per function.
            function.max_dynamic_shared_size_bytes = launch["shared"]
        return function

    def jit(number, text):
        # A fresh name for every text: CuPy caches a module by its path.
        path = os.path.join(scratch.name, f"case{number}.ptx")
        with open(path, "w") as f:
            f.write(text)
        return load(path)

    for number in range(options.start, len(all_cases)):
        name, line, text = all_cases[number]
        loaded = {}
        try:
            if index is None:
                function = jit(number, text)
            else:
                entry = index.get(name)
                if entry is None or entry["line"] != line or entry["ptx_sha256"] != sha256(text):
                    report(number, error="the cubin index holds another text: rebuild it (gpu_foreign_cubins.sh)")
                    continue
                if entry.get("error"):
                    report(number, error=f'not assembled: {entry["error"]}')
                    continue
                try:
                    function = load(os.path.join(options.cubins, entry["cubin"]))
                except Exception as refused:
                    if entry["target"] == entry["arch"]:
                        raise
                    # A driver older than the ptxas may refuse its cubin; a generic target's
                    # PTX is within reach of its JIT.
                    function = jit(number, text)
                    loaded = {"loaded_from": f"ptx, the cubin refused: {refused}"}
        except Exception as error:  # the driver refused the module; the context is intact
            report(number, error=f"not loaded: {error}")
            continue
        try:
            result = run_case(cp, function, launch, options.repeats, options.watchdog)
        except Hang as hang:
            report(number, final=True, **hang.args[0])
            # The kernel still spins: leave without tearing anything down in order.
            os._exit(3)
        except Exception as error:  # a fault in the kernel: the context is lost
            report(number, final=True, error=f"failed: {error}")
            os._exit(4)
        report(number, **loaded, **result)
    scratch.cleanup()
    return 0


def run_launch(number, launch, options):
    """Every case of a launch, each child running until a hang or an error stops it."""
    names = [(name, line) for name, line, _ in cases(launch)]
    results, start = {}, 0
    while start < len(names):
        command = [sys.executable, os.path.abspath(__file__), "--child", str(number), "--start", str(start),
                   "--repeats", str(options.repeats), "--watchdog", str(options.watchdog)]
        if options.cubins:
            command += ["--cubins", options.cubins]
        process = subprocess.Popen(command, stdout=subprocess.PIPE)
        first, pending, killed, last_final = start, b"", False, False
        while True:
            # The child answers each case within its watchdog per run; this is the backstop.
            ready, _, _ = select.select([process.stdout], [], [], options.case_limit)
            if not ready:
                process.kill()
                killed = True
                break
            chunk = os.read(process.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if line.strip():
                    answer = json.loads(line)
                    last_final = answer.pop("final", False)
                    results[answer.pop("number")] = answer
                    start = max(results) + 1
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if start < len(names) and not last_final and (killed or start == first or process.returncode != 0):
            # The child went silent, or died, on this case without a word on it.
            name, line = names[start]
            why = f"no answer in {options.case_limit:g} s" if killed else f"exited with {process.returncode}"
            results[start] = {"case": name, "line": line, "error": why, "hang": killed}
            start += 1
    # Every case with the same fields, whatever ended it.
    for result in results.values():
        for key, empty in (("runs", 0), ("wrong", 0), ("max_error", 0.0), ("non_finite_runs", 0), ("hang", False)):
            result.setdefault(key, empty)
    return [results[k] for k in sorted(results)]


def describe(result):
    if "error" in result:
        return result["error"]
    if result["hang"]:
        return f'hang: a run did not finish in the time limit, after {result["runs"]} runs ({result["wrong"]} wrong)'
    text = f'{result["wrong"]} of {result["runs"]} runs wrong'
    if "loaded_from" in result:
        text = f"{text} [JIT-loaded: the cubin was refused]"
    if result["wrong"] or result["max_error"]:
        text += f' (largest finite difference {result["max_error"]:g}' + (
            f'; {result["non_finite_runs"]} runs with NaN or infinity' if result["non_finite_runs"] else "") + ")"
    return text


def device_description():
    try:
        import cupy as cp

        properties = cp.cuda.runtime.getDeviceProperties(0)
        name = properties["name"]
        name = name.decode() if isinstance(name, bytes) else name
        return {"name": name, "driver": cp.cuda.runtime.driverGetVersion(), "cupy": cp.__version__}
    except Exception as error:
        return {"error": str(error)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--json", help="write every result as JSON here")
    parser.add_argument("--cubins", help="load the cubins of this folder (gpu_foreign_cubins.sh)")
    parser.add_argument("--watchdog", type=float, default=2.0, help="seconds a run may take before it is a hang")
    parser.add_argument("--case-limit", type=float, default=300.0,
                        help="seconds a child may go without reporting a case before it is killed")
    parser.add_argument("--only", help="run only the launches whose file starts with this")
    parser.add_argument("--list-mutants", action="store_true")
    parser.add_argument("--self-check", action="store_true")
    parser.add_argument("--build-cubins", metavar="DIR")
    parser.add_argument("--ptxas", default=os.path.join(HERE, "..", "third_party", "ptxas134", "bin", "ptxas"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.cubins:
        options.cubins = os.path.abspath(options.cubins)
    if options.child is not None:
        return child(options)
    if options.build_cubins:
        return build_cubins(options.build_cubins, options.ptxas, options.jobs)
    launches = [(n, l) for n, l in enumerate(manifest()["launches"])
                if not options.only or l["file"].startswith(options.only)]
    if options.list_mutants:
        for _, launch in launches:
            found = mutants(text_of(launch), launch["kernel"])
            print(f"{label(launch)}: {len(found)} mutants")
            for name, line, _ in found:
                print(f"  {name} (line {line})")
        return 0
    if options.self_check:
        return self_check(launches)

    report = {"device": device_description(), "repeats": options.repeats, "watchdog_s": options.watchdog,
              "loaded_from": "cubins" if options.cubins else "ptx", "kernels": []}
    if options.cubins:
        with open(os.path.join(options.cubins, "index.json")) as f:
            report["ptxas"] = json.load(f)["ptxas"]
    failed = 0
    for number, launch in launches:
        results = run_launch(number, launch, options)
        original, others = results[0], results[1:]
        for result in results:
            shown = result["case"] if result["line"] is None else f'{result["case"]} (line {result["line"]})'
            print(f"{label(launch)}: {shown}: {describe(result)}", flush=True)
        if "error" in original or original.get("hang") or original.get("wrong"):
            failed += 1
        entry = {"file": launch["file"], "kernel": launch["kernel"], "reference": launch["reference"],
                 **{k: v for k, v in original.items() if k not in ("case", "line")},
                 "mutants": [{"name": r.pop("case"), **r} for r in others]}
        report["kernels"].append(entry)
    if options.json:
        with open(options.json, "w") as f:
            json.dump(report, f, indent=1)
    print(f"{len(launches) - failed} of {len(launches)} kernels as compiled equal to their references in every run")
    return 1 if failed else 0


def self_check(launches):
    """The vectorised references against the test's loops, the dtypes' round trips, and the
    mutants' names unique and their texts differing from the kernel in the named line."""
    import numpy as np

    problems = []
    for _, launch in launches:
        output, expected = reference(launch)
        literal_output, literal = literal_reference(launch)
        param = launch["params"][output]
        if output != literal_output or len(literal) != param["len"] or expected.size != param["len"]:
            problems.append(f"{label(launch)}: output {output}/{literal_output}, {expected.size}/{len(literal)}"
                            f" elements, the buffer has {param['len']}")
            continue
        exact = "attention" not in launch["reference"]
        difference = float(np.abs(expected - np.array(literal)).max())
        if (exact and difference != 0.0) or difference > 1e-12:
            problems.append(f"{label(launch)}: the references differ by {difference}")
        # Every input is exact in its dtype, as the emulator's tensors hold it.
        for index, p in enumerate(launch["params"]):
            if "buffer" in p:
                values = np.array(buffer_values(p, index))
                back = as_float64(p["dtype"], host_buffer(p["dtype"], values))
                if not np.array_equal(back, values):
                    problems.append(f"{label(launch)}: parameter {index} is not exact in {p['dtype']}")
        if exact and not np.array_equal(as_float64(param["dtype"], host_buffer(param["dtype"], expected)), expected):
            problems.append(f"{label(launch)}: the reference is not exact in {param['dtype']}")
        names = [name for name, _, _ in mutants(text_of(launch), launch["kernel"])]
        if len(set(names)) != len(names):
            problems.append(f"{label(launch)}: mutant names repeat")
        original = text_lines(text_of(launch))
        for name, line, text in mutants(text_of(launch), launch["kernel"]):
            changed = text_lines(text)
            if len(changed) != len(original) or changed[line - 1] == original[line - 1]:
                problems.append(f"{label(launch)}: {name} does not change line {line}")
        print(f"{label(launch)}: reference {'exact' if exact else f'within {difference:.1e}'} of the loops,"
              f" {len(names)} mutants")
    for p in problems:
        print(p)
    print(f"{len(launches) - len({p.split(':')[0] for p in problems})} of {len(launches)} launches pass")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
