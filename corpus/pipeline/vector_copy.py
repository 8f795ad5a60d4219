# test: pipeline
# desc: a 4-lane asynchronous copy into shared memory

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]
        C[T.Ramp(i * 4, 1, 4)] = B[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
