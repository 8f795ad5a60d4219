# test: pipeline
# desc: adjacent producers of one stage share one commit group

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 0, 3], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
        A_shared = T.alloc_buffer((1,), "float32", scope="shared")
        B_shared = T.alloc_buffer((1,), "float32", scope="shared")
        A_shared[0] = A[i]
        B_shared[0] = B[i]
        C[i] = A_shared[0] + B_shared[0]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
#     A_shared = T.alloc_buffer((4, 1), "float32", scope="shared")
#     B_shared = T.alloc_buffer((4, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0}):
#         with T.attr({"async_scope": 1}):
#             A_shared[0, 0] = A[0]
#         T.attr({"async_scope": 1})
#         B_shared[0, 0] = B[0]
#     with T.attr({"async_commit_queue_scope": 0}):
#         with T.attr({"async_scope": 1}):
#             A_shared[1, 0] = A[1]
#         T.attr({"async_scope": 1})
#         B_shared[1, 0] = B[1]
#     with T.attr({"async_commit_queue_scope": 0}):
#         with T.attr({"async_scope": 1}):
#             A_shared[2, 0] = A[2]
#         T.attr({"async_scope": 1})
#         B_shared[2, 0] = B[2]
#     for i in range(13):
#         with T.attr({"async_commit_queue_scope": 0}):
#             with T.attr({"async_scope": 1}):
#                 A_shared[(i + 3) % 4, 0] = A[i + 3]
#             T.attr({"async_scope": 1})
#             B_shared[(i + 3) % 4, 0] = B[i + 3]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 3})
#         C[i] = A_shared[i % 4, 0] + B_shared[i % 4, 0]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
#         C[13] = A_shared[1, 0] + B_shared[1, 0]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#         C[14] = A_shared[2, 0] + B_shared[2, 0]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[15] = A_shared[3, 0] + B_shared[3, 0]
