# test: pass
# passes: cse, inject-software-pipeline
# desc: CSE before the pipeline pass: the bindings CSE puts inside the statements of a pipelined body travel with their statement through the stages

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
#     B = T.alloc_buffer((4,), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         cse_v1: T.let[T.int32] = 1
#         B[0] = A[cse_v1] + A[cse_v1]
#     for i in range(15):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             cse_v1: T.let[T.int32] = (i + 1) * 4 + 1
#             B[(i + 1) % 4] = A[cse_v1] + A[cse_v1]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#         C[i * 4 + 1] = B[i % 4] * T.float32(2.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[61] = B[3] * T.float32(2.0)
