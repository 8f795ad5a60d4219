# test: pipeline
# desc: under a thread binding, each thread pipelines its own column: no barrier is needed

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        B = T.alloc_buffer((1, 32), "float32", scope="shared")
        for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
            B[0, tx] = A[i, tx] * T.float32(2.0)
            C[i, tx] = B[0, tx] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
#     for tx in T.thread_binding(32, thread="threadIdx.x"):
#         B = T.alloc_buffer((2, 1, 32), "float32", scope="shared")
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[0, 0, tx] = A[0, tx] * T.float32(2.0)
#         for i in range(15):
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 B[(i + 1) % 2, 0, tx] = A[i + 1, tx] * T.float32(2.0)
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#             C[i, tx] = B[i % 2, 0, tx] + T.float32(1.0)
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         C[15, tx] = B[1, 0, tx] + T.float32(1.0)
