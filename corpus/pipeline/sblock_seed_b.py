# test: pipeline
# desc: the S-TIR input of the three-stage example (seed b)

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    for i in T.serial(
        0,
        16,
        annotations={
            "software_pipeline_stage": [0, 1, 2],
            "software_pipeline_order": [0, 1, 2],
            "software_pipeline_async_stages": [0, 1],
        },
    ):
        with T.sblock("compute"):
            T.reads(A[i])
            T.writes(D[i])
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            C = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            with T.sblock():
                T.reads(A[i])
                T.writes(B[0])
                B[0] = A[i] * T.float32(2)
            with T.sblock():
                T.reads(B[0])
                T.writes(C[0])
                C[0] = B[0] + T.float32(2)
            with T.sblock():
                T.reads(C[0])
                T.writes(D[i])
                D[i] = C[0] + T.float32(1)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
#     B = T.alloc_buffer((2, 1), "float32", scope="shared")
#     C = T.alloc_buffer((2, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(A[0])
#             T.writes(B[0, 0])
#             B[0, 0] = A[0] * T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(A[1])
#             T.writes(B[1, 0])
#             B[1, 0] = A[1] * T.float32(2.0)
#     with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(B[0, 0])
#             T.writes(C[0, 0])
#             C[0, 0] = B[0, 0] + T.float32(2.0)
#     for i in range(14):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             with T.sblock(""):
#                 T.reads(A[i + 2])
#                 T.writes(B[(i + 2) % 2, 0])
#                 B[(i + 2) % 2, 0] = A[i + 2] * T.float32(2.0)
#         with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#             with T.sblock(""):
#                 T.reads(B[(i + 1) % 2, 0])
#                 T.writes(C[(i + 1) % 2, 0])
#                 C[(i + 1) % 2, 0] = B[(i + 1) % 2, 0] + T.float32(2.0)
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
#         with T.sblock(""):
#             T.reads(C[i % 2, 0])
#             T.writes(D[i])
#             D[i] = C[i % 2, 0] + T.float32(1.0)
#     with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(B[1, 0])
#             T.writes(C[1, 0])
#             C[1, 0] = B[1, 0] + T.float32(2.0)
#     with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
#         with T.sblock(""):
#             T.reads(C[0, 0])
#             T.writes(D[14])
#             D[14] = C[0, 0] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#     with T.sblock(""):
#         T.reads(C[1, 0])
#         T.writes(D[15])
#         D[15] = C[1, 0] + T.float32(1.0)
