# test: pipeline
# desc: the S-TIR input TVM pipelines (seed a): blocks with regions, staging buffer allocated by the body block

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(
        0,
        16,
        annotations={
            "software_pipeline_stage": [0, 1],
            "software_pipeline_order": [0, 1],
            "software_pipeline_async_stages": [0],
        },
    ):
        with T.sblock("compute"):
            T.reads(A[i])
            T.writes(C[i])
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            with T.sblock():
                T.reads(A[i])
                T.writes(B[0])
                B[0] = A[i] + T.float32(1)
            with T.sblock():
                T.reads(B[0])
                T.writes(C[i])
                C[i] = B[0] + T.float32(1)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
#     B = T.alloc_buffer((2, 1), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         with T.sblock(""):
#             T.reads(A[0])
#             T.writes(B[0, 0])
#             B[0, 0] = A[0] + T.float32(1.0)
#     for i in range(15):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             with T.sblock(""):
#                 T.reads(A[i + 1])
#                 T.writes(B[(i + 1) % 2, 0])
#                 B[(i + 1) % 2, 0] = A[i + 1] + T.float32(1.0)
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#         with T.sblock(""):
#             T.reads(B[i % 2, 0])
#             T.writes(C[i])
#             C[i] = B[i % 2, 0] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     with T.sblock(""):
#         T.reads(B[1, 0])
#         T.writes(C[15])
#         C[15] = B[1, 0] + T.float32(1.0)
