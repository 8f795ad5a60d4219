# The Triton side of tirproof's Triton peer: a long-lived process that reads one JSON request
# per line on stdin and answers one JSON line on stdout, so Triton is imported once per
# campaign, not once per program.
#
# Requests: {"id": N, "op": OP, "text": TTGIR}
#   op "version": answers {"id", "ok": true, "text": triton.__version__}
#   op "waits":   parses the TTGIR, runs Triton's pipeline pass with num_stages = 0 (which
#                 pipelines nothing and recomputes the `num` of every ttg.async_wait from its
#                 tokens: updateWaits), prints the module
# Answers: {"id", "ok": true, "text": PRINTED}, {"id", "ok": false, "kind": "NotInstalled",
#          "message": THE IMPORT'S ERROR} to any request when Triton cannot be imported, or
#          {"id", "ok": false, "stage": "parse" | "pass" | "print", "kind": EXCEPTION TYPE,
#           "message": TEXT}
# The loop (`serve`, which keeps stdout for answers and sends Triton's own prints to stderr) is
# peer/json_lines.py's, run before this source.
import os
import tempfile

try:
    import triton  # noqa: E402
    from triton._C.libtriton import ir, nvidia, passes  # noqa: E402
    IMPORT_ERROR = None
except ImportError as error:
    IMPORT_ERROR = f"{type(error).__name__}: {error}"


def failure(stage, error):
    return {"ok": False, "stage": stage, "kind": type(error).__name__, "message": str(error)}


def parse(text, context):
    # Triton's binding parses files only.
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as file:
        file.write(text)
        path = file.name
    try:
        return ir.parse_mlir_module(path, context)
    finally:
        os.unlink(path)


def answer(request):
    if IMPORT_ERROR is not None:
        return {"ok": False, "stage": None, "kind": "NotInstalled", "message": IMPORT_ERROR}
    op = request.get("op")
    if op == "version":
        return {"ok": True, "text": triton.__version__}
    if op != "waits":
        return {"ok": False, "stage": "parse", "kind": "ProtocolError", "message": f"unknown op {op!r}"}
    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    try:
        module = parse(request["text"], context)
    except Exception as error:  # noqa: BLE001 - every refusal of Triton's parser is an answer
        return failure("parse", error)
    module.context = context
    try:
        manager = ir.pass_manager(context)
        passes.ttgpuir.add_pipeline(manager, 0, False)
        manager.run(module, "update_async_wait_count")
    except Exception as error:  # noqa: BLE001 - every error of Triton's pass is an answer
        return failure("pass", error)
    try:
        return {"ok": True, "text": str(module)}
    except Exception as error:  # noqa: BLE001
        return failure("print", error)


serve(answer)  # noqa: F821 - defined by json_lines.py
