# test: pass-error
# desc: a consumer that also writes the staging buffer carries its value between iterations: the message says so, not that the buffer is not allocated
# error: 9:5: error: statement 1 uses `B` after statement 0 writes it, but with stages [0, 1, 1] and orders [0, 1, 2] the next iteration's write would come first; `B` cannot be versioned because statement 1 both reads and writes it, carrying its value from one iteration to the next

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 1], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i]
        B[0] = B[0] + T.float32(1.0)
        C[i] = B[0]
