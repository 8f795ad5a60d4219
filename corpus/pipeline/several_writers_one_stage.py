# test: pipeline
# desc: two async writers of one staging buffer, adjacent in one stage, share a group; the consumer waits for one group in flight (symbolic extent)

# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (n * 2,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((2,), "float32", scope="shared")
        B[0] = A[i * 2]
        B[1] = A[i * 2 + 1]
        C[i] = B[0] + B[1]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(a: T.handle, c: T.handle, n: T.int32):
#     A = T.match_buffer(a, (n * 2,), "float32")
#     C = T.match_buffer(c, (n,), "float32")
#     B = T.alloc_buffer((2, 2), "float32", scope="shared")
#     if n >= 1:
#         with T.attr({"async_commit_queue_scope": 0}):
#             with T.attr({"async_scope": 1}):
#                 B[0, 0] = A[0]
#             T.attr({"async_scope": 1})
#             B[0, 1] = A[1]
#         for i in range(n - 1):
#             with T.attr({"async_commit_queue_scope": 0}):
#                 with T.attr({"async_scope": 1}):
#                     B[(i + 1) % 2, 0] = A[(i + 1) * 2]
#                 T.attr({"async_scope": 1})
#                 B[(i + 1) % 2, 1] = A[(i + 1) * 2 + 1]
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#             C[i] = B[i % 2, 0] + B[i % 2, 1]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         C[n - 1] = B[(n - 1) % 2, 0] + B[(n - 1) % 2, 1]
