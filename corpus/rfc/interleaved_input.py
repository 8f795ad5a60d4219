# test: run
# desc: RFC interleaved example, the loop before pipelining: stages [0, 0, 3], orders [0, 2, 1]
# run: lazy A=arange B=ones -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 0, 3], "software_pipeline_order": [0, 2, 1], "software_pipeline_async_stages": [0]}):
        A_shared = T.alloc_buffer((1,), "float32", scope="shared")
        B_shared = T.alloc_buffer((1,), "float32", scope="shared")
        A_shared[0] = A[i]
        B_shared[0] = B[i]
        C[i] = A_shared[0] + B_shared[0]
