# test: pass-error
# desc: annotations for three statements on a body of two
# error: 9:5: error: the annotations describe 3 statements, but the loop body has 1 or 2 (looking through allocations and the body block)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)
