# test: pipeline
# desc: threads read each other's copies (the original synchronizes with barriers): the pass adds a barrier after every wait and at the end of every step

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        B = T.alloc_buffer((8,), "float32", scope="shared")
        for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1, 1, 1], "software_pipeline_order": [0, 1, 2, 3], "software_pipeline_async_stages": [0]}):
            B[tx] = A[i, tx]
            T.tvm_storage_sync("shared")
            C[i, tx] = B[7 - tx] + T.float32(1.0)
            T.tvm_storage_sync("shared")

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
#     for tx in T.thread_binding(8, thread="threadIdx.x"):
#         B = T.alloc_buffer((2, 8), "float32", scope="shared")
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[0, tx] = A[0, tx]
#         T.tvm_storage_sync("shared")
#         for i in range(15):
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 B[(i + 1) % 2, tx] = A[i + 1, tx]
#             T.tvm_storage_sync("shared")
#             with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#                 T.tvm_storage_sync("shared")
#                 C[i, tx] = B[i % 2, 7 - tx] + T.float32(1.0)
#             T.tvm_storage_sync("shared")
#         T.tvm_storage_sync("shared")
#         with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
#             T.tvm_storage_sync("shared")
#             C[15, tx] = B[1, 7 - tx] + T.float32(1.0)
#         T.tvm_storage_sync("shared")
