# test: pass-error
# desc: an async statement whose inner loop reads the element it wrote asynchronously one inner iteration before; no wait can complete its own uncommitted group
# error: 9:5: error: statement 0 (async stage 0) may read `C` (line 11) after writing the same element itself in one iteration; its async write is still pending then, and no wait can complete it before the statement's group is committed

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32")):
    for k0 in T.serial(4, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0], "software_pipeline_async_stages": [0]}):
        for k1 in range(2):
            C[0] = C[0] + A[k0 * 2 + k1]
