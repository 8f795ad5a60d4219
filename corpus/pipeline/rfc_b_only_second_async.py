# test: pipeline
# desc: only the middle stage is asynchronous

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    C = T.alloc_buffer((1,), "float32", scope="shared")
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [1]}):
        B[0] = A[i] * T.float32(2.0)
        C[0] = B[0] + T.float32(2.0)
        D[i] = C[0] + T.float32(1.0)
