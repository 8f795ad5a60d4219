# test: pipeline
# desc: the RFC's three-stage example: statement 1 consumes queue 0 and produces queue 1 (staging buffers allocated above the loop)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    C = T.alloc_buffer((1,), "float32", scope="shared")
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0, 1]}):
        B[0] = A[i] * T.float32(2.0)
        C[0] = B[0] + T.float32(2.0)
        D[i] = C[0] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
#     B = T.alloc_buffer((2, 1), "float32", scope="shared")
#     C = T.alloc_buffer((2, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0, 0] = A[0] * T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[1, 0] = A[1] * T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#         C[0, 0] = B[0, 0] + T.float32(2.0)
#     for i in range(14):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[(i + 2) % 2, 0] = A[i + 2] * T.float32(2.0)
#         with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#             C[(i + 1) % 2, 0] = B[(i + 1) % 2, 0] + T.float32(2.0)
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
#         D[i] = C[i % 2, 0] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
#         C[1, 0] = B[1, 0] + T.float32(2.0)
#     with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
#         D[14] = C[0, 0] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#     D[15] = C[1, 0] + T.float32(1.0)
