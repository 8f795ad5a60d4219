# test: pipeline
# desc: a running sum in a buffer above the loop is loop-carried memory, not a staging buffer

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((1,), "float32")):
    acc = T.alloc_buffer((1,), "float32", scope="local")
    acc[0] = T.float32(0.0)
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        S = T.alloc_buffer((1,), "float32", scope="shared")
        S[0] = A[i] * T.float32(0.5)
        acc[0] = acc[0] + S[0]
    C[0] = acc[0]
