# test: pass-error
# desc: a producer that writes a buffer allocated above the loop only in even iterations: odd iterations read the previous iteration's value, so the buffer keeps one version, which stages [0, 1] cannot order
# error: 10:5: error: statement 1 uses `B` after statement 0 writes it, but with stages [0, 1] and orders [0, 1] the next iteration's write would come first; `B` cannot be versioned because its write is conditional: statement 1 may read a value of `B` written in an earlier iteration

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        if i % 2 == 0:
            B[0] = A[i]
        C[i] = B[0] + T.float32(1.0)
