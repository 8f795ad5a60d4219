# test: pipeline
# desc: the S-TIR input of the interleaved example (seed c)

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(
    A: T.Buffer((16,), "float32"),
    B: T.Buffer((16,), "float32"),
    C: T.Buffer((16,), "float32"),
):
    for i in T.serial(
        0,
        16,
        annotations={
            "software_pipeline_stage": [0, 0, 3],
            "software_pipeline_order": [0, 2, 1],
            "software_pipeline_async_stages": [0],
        },
    ):
        with T.sblock("compute"):
            T.reads(A[i], B[i])
            T.writes(C[i])
            A_shared = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            B_shared = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            with T.sblock():
                T.reads(A[i])
                T.writes(A_shared[0])
                A_shared[0] = A[i]
            with T.sblock():
                T.reads(B[i])
                T.writes(B_shared[0])
                B_shared[0] = B[i]
            with T.sblock():
                T.reads(A_shared[0], B_shared[0])
                T.writes(C[i])
                C[i] = A_shared[0] + B_shared[0]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
#     A_shared = T.alloc_buffer((4, 1), "float32", scope="shared")
#     B_shared = T.alloc_buffer((3, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(A[0])
#             T.writes(A_shared[0, 0])
#             A_shared[0, 0] = A[0]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(B[0])
#             T.writes(B_shared[0, 0])
#             B_shared[0, 0] = B[0]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(A[1])
#             T.writes(A_shared[1, 0])
#             A_shared[1, 0] = A[1]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(B[1])
#             T.writes(B_shared[1, 0])
#             B_shared[1, 0] = B[1]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(A[2])
#             T.writes(A_shared[2, 0])
#             A_shared[2, 0] = A[2]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(B[2])
#             T.writes(B_shared[2, 0])
#             B_shared[2, 0] = B[2]
#     for i in range(13):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             with T.sblock(""):
#                 T.reads(A[i + 3])
#                 T.writes(A_shared[(i + 3) % 4, 0])
#                 A_shared[(i + 3) % 4, 0] = A[i + 3]
#         with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 5}):
#             with T.sblock(""):
#                 T.reads(A_shared[i % 4, 0], B_shared[i % 3, 0])
#                 T.writes(C[i])
#                 C[i] = A_shared[i % 4, 0] + B_shared[i % 3, 0]
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         with T.sblock(""):
#             T.reads(B[i + 3])
#             T.writes(B_shared[(i + 3) % 3, 0])
#             B_shared[(i + 3) % 3, 0] = B[i + 3]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 4}):
#         with T.sblock(""):
#             T.reads(A_shared[1, 0], B_shared[1, 0])
#             T.writes(C[13])
#             C[13] = A_shared[1, 0] + B_shared[1, 0]
#     with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
#         with T.sblock(""):
#             T.reads(A_shared[2, 0], B_shared[2, 0])
#             T.writes(C[14])
#             C[14] = A_shared[2, 0] + B_shared[2, 0]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     with T.sblock(""):
#         T.reads(A_shared[3, 0], B_shared[0, 0])
#         T.writes(C[15])
#         C[15] = A_shared[3, 0] + B_shared[0, 0]
