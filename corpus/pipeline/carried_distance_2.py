# test: pipeline
# desc: the consumer reads B[i], which the producer wrote as B[i + 2] two iterations earlier: a flow dependence at distance 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((18,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [1, 0], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        C[i] = B[i] + T.float32(1.0)
        B[i + 2] = A[i]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), B: T.Buffer((18,), "float32"), C: T.Buffer((16,), "float32")):
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[2] = A[0]
#     C[0] = B[0] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[3] = A[1]
#     C[1] = B[1] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[4] = A[2]
#     for i in range(13):
#         with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
#             C[i + 2] = B[i + 2] + T.float32(1.0)
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         B[i + 3 + 2] = A[i + 3]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
#         C[15] = B[15] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     T.evaluate(0)
