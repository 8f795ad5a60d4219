# test: pipeline
# desc: an inner pipelined loop inside an outer pipelined loop (GEMM-shaped); queues of the two pipelines stay apart

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((1,), "float32")):
    for k0 in T.serial(8, annotations={"software_pipeline_stage": [0, 0, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
        A_shared = T.alloc_buffer((4,), "float32", scope="shared")
        B_shared = T.alloc_buffer((4,), "float32", scope="shared")
        for j in range(4):
            A_shared[j] = A[k0 * 4 + j]
        for j in range(4):
            B_shared[j] = B[k0 * 4 + j]
        for k1 in T.serial(4, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
            A_local = T.alloc_buffer((1,), "float32", scope="local")
            B_local = T.alloc_buffer((1,), "float32", scope="local")
            A_local[0] = A_shared[k1]
            B_local[0] = B_shared[k1]
            C[0] = C[0] + A_local[0] * B_local[0]
