# test: run
# desc: RFC example 3, the loop before pipelining: three stages, the first two asynchronous
# run: lazy A=arange -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0, 1]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        C = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[0] = B[0] + T.float32(1.0)
        D[i] = C[0] + T.float32(1.0)
