# test: pipeline
# desc: threads read each other's copies: a barrier after every wait and at the end of every step

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        B = T.alloc_buffer((8,), "float32", scope="shared")
        for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
            B[tx] = A[i, tx]
            C[i, tx] = B[7 - tx] + T.float32(1.0)
