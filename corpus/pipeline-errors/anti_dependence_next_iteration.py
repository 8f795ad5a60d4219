# test: pass-error
# desc: statement 0 reads B[i + 1], which statement 1 overwrites one iteration later; orders [1, 0] would run that write first
# error: 9:5: error: statement 1 overwrites `B` 1 iteration(s) after statement 0 accesses the same element, but stages [1, 0] and orders [1, 0] run that write first

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((17,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [1, 0], "software_pipeline_order": [1, 0], "software_pipeline_async_stages": [0]}):
        C[i] = B[i + 1] + T.float32(1.0)
        B[i] = A[i]
