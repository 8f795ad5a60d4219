# test: pipeline
# desc: the consumer of two queues runs first in each step

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [2, 0, 1], "software_pipeline_async_stages": [0, 1]}):
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
#     A_shared = T.alloc_buffer((2, 1), "float32", scope="shared")
#     B_shared = T.alloc_buffer((2, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         A_shared[0, 0] = A[0]
#     with T.attr({"async_commit_queue_scope": 1, "async_scope": 1}):
#         B_shared[0, 0] = B[0]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         A_shared[1, 0] = A[1]
#     for i in range(14):
#         with T.attr({"async_commit_queue_scope": 1, "async_scope": 1}):
#             B_shared[(i + 1) % 2, 0] = B[i + 1]
#         with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#             T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
#             C[i] = A_shared[i % 2, 0] + B_shared[i % 2, 0]
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         A_shared[(i + 2) % 2, 0] = A[i + 2]
#     with T.attr({"async_commit_queue_scope": 1, "async_scope": 1}):
#         B_shared[1, 0] = B[15]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
#         C[14] = A_shared[0, 0] + B_shared[0, 0]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#     C[15] = A_shared[1, 0] + B_shared[1, 0]
