# test: pass-error
# desc: a function parameter used as a staging buffer cannot be versioned; pipelining it would let the next copy overwrite the value before it is used
# error: 9:5: error: statement 1 uses `B` after statement 0 writes it, but with stages [0, 1] and orders [0, 1] the next iteration's write would come first; `B` would need versions, which only a buffer the function allocates (T.alloc_buffer) can have

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((1,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)
