# The TVM side of tirproof's peer oracle: a long-lived process that reads one JSON request per
# line on stdin and answers one JSON line on stdout, so TVM is imported once per campaign
# worker, not once per program.
#
# Requests: {"id": N, "op": OP, "text": TVMSCRIPT}
#   op "version":  answers {"id", "ok": true, "text": tvm.__version__}
#   op "parse":    parses the text and prints it back (TVM's own spelling of our text)
#   op "pipeline": parses, runs InjectSoftwarePipeline, prints the result
#   op "lower":    parses, runs InjectSoftwarePipeline, LowerOpaqueBlock and FlattenBuffer
#                  (the lowering TVM runs after the pass, up to flattened buffers), prints
#   op "thread-sync": parses, runs LowerOpaqueBlock and ThreadSync("shared") (the barriers
#                  TVM inserts between thread scopes), prints
# Answers: {"id", "ok": true, "text": PRINTED}, {"id", "ok": false, "kind": "NotInstalled",
#          "message": THE IMPORT'S ERROR} to any request when TVM cannot be imported, or
#          {"id", "ok": false, "stage": "parse" | "pass" | "print", "kind": EXCEPTION TYPE,
#           "message": TEXT, "location": "FILE.cc:LINE" or null}
# The loop (`serve`, which keeps stdout for answers and sends TVM's own prints to stderr) is
# peer/json_lines.py's, run before this source.
import re
import traceback

# A Python without TVM (or with a broken one) answers every request with the import's error,
# which the caller takes for "TVM is not installed", not for a crash of TVM on a program.
try:
    import tvm  # noqa: E402
    import tvm.s_tir  # noqa: E402
    import tvm.tirx  # noqa: E402
    IMPORT_ERROR = None
except ImportError as error:
    IMPORT_ERROR = f"{type(error).__name__}: {error}"

PASSES = {
    "pipeline": lambda: [tvm.s_tir.transform.InjectSoftwarePipeline()],
    "lower": lambda: [
        tvm.s_tir.transform.InjectSoftwarePipeline(),
        tvm.s_tir.transform.LowerOpaqueBlock(),
        tvm.tirx.transform.FlattenBuffer(),
    ],
    "thread-sync": lambda: [
        tvm.s_tir.transform.LowerOpaqueBlock(),
        tvm.s_tir.transform.ThreadSync("shared"),
    ],
}

# The C++ source line of the innermost frame TVM's traceback names, e.g.
#   File "/project/src/s_tir/transform/inject_software_pipeline.cc", line 842, in ...
FRAME = re.compile(r'File "[^"]*?/src/([^"]+\.(?:cc|h))", line (\d+)')


def location(error):
    frames = FRAME.findall("".join(traceback.format_exception(error)))
    return f"{frames[-1][0]}:{frames[-1][1]}" if frames else None


def parse(text):
    # from_source provides `T` and `I` and refuses import statements.
    lines = [line for line in text.splitlines() if not line.startswith(("from ", "import "))]
    parsed = tvm.script.from_source("\n".join(lines) + "\n")
    return parsed if isinstance(parsed, tvm.IRModule) else tvm.IRModule({"main": parsed})


def failure(stage, error):
    message = str(error)
    return {"ok": False, "stage": stage, "kind": type(error).__name__, "message": message,
            "location": location(error)}


def answer(request):
    op = request.get("op")
    if IMPORT_ERROR is not None:
        return {"ok": False, "stage": None, "kind": "NotInstalled", "message": IMPORT_ERROR, "location": None}
    if op == "version":
        return {"ok": True, "text": tvm.__version__}
    if op not in ("parse", "pipeline", "lower", "thread-sync"):
        return {"ok": False, "stage": "parse", "kind": "ProtocolError", "message": f"unknown op {op!r}",
                "location": None}
    try:
        module = parse(request["text"])
    except Exception as error:  # noqa: BLE001 - every refusal of TVM's parser is an answer
        return failure("parse", error)
    try:
        for transform in PASSES.get(op, lambda: [])():
            module = transform(module)
    except Exception as error:  # noqa: BLE001 - every error of TVM's passes is an answer
        return failure("pass", error)
    try:
        return {"ok": True, "text": module.script()}
    except Exception as error:  # noqa: BLE001
        return failure("print", error)


serve(answer)  # noqa: F821 - defined by json_lines.py
