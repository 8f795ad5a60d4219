# test: print
# desc: every loop kind, non-zero minimums and loop annotations

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        for i in range(2):
            A[tx * 2 + i] = T.float32(0.0)
    for i in range(2, 10):
        A[i] = T.float32(1.0)
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        A[i] = A[i] + T.float32(1.0)
    for i in T.unroll(4):
        A[i] = T.float32(2.0)
    for i in T.vectorized(4):
        A[i + 4] = T.float32(3.0)
    for i in T.parallel(8):
        A[i + 8] = T.float32(4.0)
    for i in T.unroll(1, 3, annotations={"pragma_unroll_explicit": 0}):
        A[i] = T.float32(5.0)
