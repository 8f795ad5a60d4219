# test: pass-error
# desc: the consumer reads the staging buffer before the producer writes it in the same iteration
# error: 9:5: error: statement 0 reads `B`, which the loop body allocates, before any statement of the same iteration writes it

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        C[i] = B[0] + T.float32(1.0)
        B[0] = A[i] + T.float32(1.0)
