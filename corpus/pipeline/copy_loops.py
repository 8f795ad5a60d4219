# test: pipeline
# desc: statements that are loops: a 4-element copy per iteration

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        for j in range(4):
            B[j] = A[i * 4 + j]
        for j in range(4):
            C[i * 4 + j] = B[3 - j]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
#     B = T.alloc_buffer((3, 4), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         for j in range(4):
#             B[0, j] = A[j]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         for j in range(4):
#             B[1, j] = A[4 + j]
#     for i in range(14):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             for j in range(4):
#                 B[(i + 2) % 3, j] = A[(i + 2) * 4 + j]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2})
#         for j in range(4):
#             C[i * 4 + j] = B[i % 3, 3 - j]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
#         for j in range(4):
#             C[56 + j] = B[2, 3 - j]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     for j in range(4):
#         C[60 + j] = B[0, 3 - j]
