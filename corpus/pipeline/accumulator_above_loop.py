# test: pipeline
# desc: a running sum in a buffer above the loop is loop-carried memory, not a staging buffer

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((1,), "float32")):
    acc = T.alloc_buffer((1,), "float32", scope="local")
    acc[0] = T.float32(0.0)
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        S = T.alloc_buffer((1,), "float32", scope="shared")
        S[0] = A[i] * T.float32(0.5)
        acc[0] = acc[0] + S[0]
    C[0] = acc[0]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), C: T.Buffer((1,), "float32")):
#     acc = T.alloc_buffer((1,), "float32", scope="local")
#     acc[0] = T.float32(0.0)
#     with T.alloc_buffer((2, 1), "float32", scope="shared") as S:
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             S[0, 0] = A[0] * T.float32(0.5)
#         for i in range(15):
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 S[(i + 1) % 2, 0] = A[i + 1] * T.float32(0.5)
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#             acc[0] = acc[0] + S[i % 2, 0]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         acc[0] = acc[0] + S[1, 0]
#     C[0] = acc[0]
