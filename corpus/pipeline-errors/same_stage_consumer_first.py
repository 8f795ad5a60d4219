# test: pass-error
# desc: a consumer ordered before its producer within the same stage
# error: 9:5: error: statement 1 uses `B` after statement 0 writes it, but `software_pipeline_order` [1, 0] runs it first within stage 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [1, 0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)
