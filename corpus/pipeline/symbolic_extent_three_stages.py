# test: pipeline
# desc: a symbolic extent with three stages and two queues

# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, d: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    D = T.match_buffer(d, (n,), "float32")
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0, 1]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        C = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] * T.float32(2.0)
        C[0] = B[0] + T.float32(2.0)
        D[i] = C[0] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(a: T.handle, d: T.handle, n: T.int32):
#     A = T.match_buffer(a, (n,), "float32")
#     D = T.match_buffer(d, (n,), "float32")
#     B = T.alloc_buffer((2, 1), "float32", scope="shared")
#     C = T.alloc_buffer((2, 1), "float32", scope="shared")
#     if n >= 2:
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[0, 0] = A[0] * T.float32(2.0)
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[1, 0] = A[1] * T.float32(2.0)
#         with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#             C[0, 0] = B[0, 0] + T.float32(2.0)
#         for i in range(n - 2):
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 B[(i + 2) % 2, 0] = A[i + 2] * T.float32(2.0)
#             with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#                 C[(i + 1) % 2, 0] = B[(i + 1) % 2, 0] + T.float32(2.0)
#             T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
#             D[i] = C[i % 2, 0] + T.float32(1.0)
#         with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
#             C[(n - 1) % 2, 0] = B[(n - 1) % 2, 0] + T.float32(2.0)
#         with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
#             D[n - 2] = C[(n - 2) % 2, 0] + T.float32(1.0)
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#         D[n - 1] = C[(n - 1) % 2, 0] + T.float32(1.0)
#     elif n == 1:
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[0, 0] = A[0] * T.float32(2.0)
#         with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
#             C[0, 0] = B[0, 0] + T.float32(2.0)
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#         D[0] = C[0, 0] + T.float32(1.0)
