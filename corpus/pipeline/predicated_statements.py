# test: pipeline
# desc: producer and consumer under the same condition: commits stay unconditional, so counts stay exact

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        if i % 3 != 1:
            B[0] = A[i] + T.float32(1.0)
        if i % 3 != 1:
            C[i] = B[0] * T.float32(2.0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
#     B = T.alloc_buffer((3, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0, 0] = A[0] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 0}):
#         pass
#     for i in range(14):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             if (i + 2) % 3 != 1:
#                 B[(i + 2) % 3, 0] = A[i + 2] + T.float32(1.0)
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2})
#         if i % 3 != 1:
#             C[i] = B[i % 3, 0] * T.float32(2.0)
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#         C[14] = B[2, 0] * T.float32(2.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[15] = B[0, 0] * T.float32(2.0)
