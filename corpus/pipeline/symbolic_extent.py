# test: pipeline
# desc: a symbolic extent: the general code under `n >= 2`, specialized code for n == 1

# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)
