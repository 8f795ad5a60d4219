# test: pipeline
# desc: a consumer three stages after its producer

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 3], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
#     B = T.alloc_buffer((4, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0, 0] = A[0] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[1, 0] = A[1] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[2, 0] = A[2] + T.float32(1.0)
#     for i in range(13):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[(i + 3) % 4, 0] = A[i + 3] + T.float32(1.0)
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 3})
#         C[i] = B[i % 4, 0] + T.float32(1.0)
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
#         C[13] = B[1, 0] + T.float32(1.0)
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#         C[14] = B[2, 0] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[15] = B[3, 0] + T.float32(1.0)
