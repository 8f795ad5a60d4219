# test: pipeline
# desc: extent 1, smaller than the number of stages

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), C: T.Buffer((1,), "float32")):
    for i in T.serial(0, 1, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((1,), "float32", scope="shared")
        B[0] = A[i] + T.float32(1.0)
        C[i] = B[0] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((1,), "float32"), C: T.Buffer((1,), "float32")):
#     B = T.alloc_buffer((2, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0, 0] = A[0] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[0] = B[0, 0] + T.float32(1.0)
