# test: pipeline
# desc: an int64 loop, constant and symbolic: every bound, offset and slot index the pass writes is int64 like the loop variable, so the checker accepts the output

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((T.int64(16),), "float32"), Out: T.Buffer((T.int64(16),), "float32"), C: T.Buffer((n,), "float32"), D: T.Buffer((n,), "float32"), n: T.int64):
    for i in T.serial(T.int64(16), annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i]
        Out[i] = B[0]
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        S = T.alloc_buffer((1,), "float32", scope="shared")
        S[0] = C[i]
        D[i] = S[0]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((T.int64(16),), "float32"), Out: T.Buffer((T.int64(16),), "float32"), C_handle: T.handle, D_handle: T.handle, n: T.int64):
#     C = T.match_buffer(C_handle, (n,), "float32")
#     D = T.match_buffer(D_handle, (n,), "float32")
#     with T.alloc_buffer((2, 1), "float32", scope="shared") as B:
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[T.int64(0), 0] = A[T.int64(0)]
#         for i in range(T.int64(15)):
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 B[(i + T.int64(1)) % T.int64(2), 0] = A[i + T.int64(1)]
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#             Out[i] = B[i % T.int64(2), 0]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         Out[T.int64(15)] = B[T.int64(1), 0]
#     S = T.alloc_buffer((3, 1), "float32", scope="shared")
#     if n >= T.int64(2):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             S[T.int64(0), 0] = C[T.int64(0)]
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             S[T.int64(1), 0] = C[T.int64(1)]
#         for i in range(n - T.int64(2)):
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 S[(i + T.int64(2)) % T.int64(3), 0] = C[i + T.int64(2)]
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2})
#             D[i] = S[i % T.int64(3), 0]
#         with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#             D[n - T.int64(2)] = S[(n - T.int64(2)) % T.int64(3), 0]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         D[n - T.int64(1)] = S[(n - T.int64(1)) % T.int64(3), 0]
#     elif n == T.int64(1):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             S[T.int64(0), 0] = C[T.int64(0)]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         D[T.int64(0)] = S[T.int64(0), 0]
