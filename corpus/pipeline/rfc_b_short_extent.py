# test: pipeline
# desc: the three-stage example with extent 2, shorter than the pipeline

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), D: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    C = T.alloc_buffer((1,), "float32", scope="shared")
    for i in T.serial(2, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0, 1]}):
        B[0] = A[i] * T.float32(2.0)
        C[0] = B[0] + T.float32(2.0)
        D[i] = C[0] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((2,), "float32"), D: T.Buffer((2,), "float32")):
#     B = T.alloc_buffer((2, 1), "float32", scope="shared")
#     C = T.alloc_buffer((2, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0, 0] = A[0] * T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[1, 0] = A[1] * T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#         C[0, 0] = B[0, 0] + T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
#         C[1, 0] = B[1, 0] + T.float32(2.0)
#     with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
#         D[0] = C[0, 0] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#     D[1] = C[1, 0] + T.float32(1.0)
