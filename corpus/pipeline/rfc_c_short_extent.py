# test: pipeline
# desc: interleaved producers with extent 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    for i in T.serial(2, annotations={"software_pipeline_stage": [0, 0, 3], "software_pipeline_order": [0, 2, 1], "software_pipeline_async_stages": [0]}):
        A_shared = T.alloc_buffer((1,), "float32", scope="shared")
        B_shared = T.alloc_buffer((1,), "float32", scope="shared")
        A_shared[0] = A[i]
        B_shared[0] = B[i]
        C[i] = A_shared[0] + B_shared[0]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
#     A_shared = T.alloc_buffer((4, 1), "float32", scope="shared")
#     B_shared = T.alloc_buffer((3, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         A_shared[0, 0] = A[0]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B_shared[0, 0] = B[0]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         A_shared[1, 0] = A[1]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B_shared[1, 0] = B[1]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
#         C[0] = A_shared[0, 0] + B_shared[0, 0]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[1] = A_shared[1, 0] + B_shared[1, 0]
