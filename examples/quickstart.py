# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32, 4), "float32"), C: T.Buffer((32, 4), "float32")):
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for i in T.serial(32, annotations={
                "software_pipeline_stage": [0, 2],        # the copy in stage 0, its use two iterations later
                "software_pipeline_order": [0, 1],        # the order of the two statements in the new body
                "software_pipeline_async_stages": [0]}):  # stage 0 becomes an asynchronous copy
            S = T.alloc_buffer((4,), "float32", scope="shared")
            S[tx] = A[i, tx]
            C[i, tx] = S[tx] * T.float32(2.0)
