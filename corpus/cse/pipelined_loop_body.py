# test: pass
# passes: cse
# desc: the body of a loop the pipeline pass will transform keeps its statements (the annotations count them): no binding at its root, only inside its statements; the program still pipelines afterwards

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        B[i % 4] = A[i * 4 + 1] + A[i * 4 + 1]
        C[i * 4 + 1] = B[i % 4] * T.float32(2.0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
#     for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
#         B = T.alloc_buffer((4,), "float32", scope="shared")
#         with T.LetStmt(i * 4 + 1) as cse_v1:
#             B[i % 4] = A[cse_v1] + A[cse_v1]
#         C[i * 4 + 1] = B[i % 4] * T.float32(2.0)
