# test: pipeline
# desc: a symbolic extent with three stages and two queues

# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, d: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    D = T.match_buffer(d, (n,), "float32")
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0, 1]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        C = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] * T.float32(2.0)
        C[0] = B[0] + T.float32(2.0)
        D[i] = C[0] + T.float32(1.0)
