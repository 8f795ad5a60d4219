# test: pass
# passes: lower-opaque-block,flatten-buffer
# desc: corpus/tvm/seed_b_after_pipeline.py (TVM 0.27 after InjectSoftwarePipeline), lowered and flattened (compare corpus/tvm/seed_b_after_flatten_cse.py, which is also CSE'd)

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
        with T.sblock("root"):
            T.reads()
            T.writes()
            with T.sblock(""):
                T.reads(A[0:16])
                T.writes(D[0:16])
                B = T.sblock_alloc_buffer((2, 1), scope="shared")
                C = T.sblock_alloc_buffer((2, 1), scope="shared")
                with T.sblock(""):
                    T.reads(A[0:2], B[0:2, 0])
                    T.writes(B[0:2, 0], C[0:2, 0])
                    for i in T.unroll(2):
                        with T.sblock(""):
                            T.where(i < 16)
                            T.reads(A[i])
                            T.writes(B[i % 2, 0])
                            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                            B[i % 2, 0] = A[i] * T.float32(2.0)
                        with T.sblock(""):
                            T.where(i == 1 and i - 1 < 16)
                            T.reads(B[(i - 1) % 2, 0])
                            T.writes(C[(i - 1) % 2, 0])
                            T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1})
                            C[(i - 1) % 2, 0] = B[(i - 1) % 2, 0] + T.float32(2.0)
                with T.sblock(""):
                    T.reads(A[2:16], B[0:2, 0], C[0:2, 0])
                    T.writes(B[0:2, 0], C[0:2, 0], D[0:14])
                    for i in range(14):
                        with T.sblock(""):
                            T.where(i + 2 < 16)
                            T.reads(A[i + 2])
                            T.writes(B[(i + 2) % 2, 0])
                            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                            B[(i + 2) % 2, 0] = A[i + 2] * T.float32(2.0)
                        with T.sblock(""):
                            T.where(i + 2 - 1 < 16)
                            T.reads(B[(i - 1 + 2) % 2, 0])
                            T.writes(C[(i - 1 + 2) % 2, 0])
                            T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1})
                            C[(i - 1 + 2) % 2, 0] = B[(i - 1 + 2) % 2, 0] + T.float32(2.0)
                        with T.sblock(""):
                            T.where(i + 2 - 2 < 16)
                            T.reads(C[0:2, 0])
                            T.writes(D[i - 2 + 2])
                            T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
                            D[i - 2 + 2] = C[(i - 2 + 2) % 2, 0] + T.float32(1.0)
                with T.sblock(""):
                    T.reads(B[0:2, 0], C[0:2, 0])
                    T.writes(C[0:2, 0], D[14:16])
                    for i in T.unroll(2):
                        with T.sblock(""):
                            T.where(i + 16 - 1 < 16)
                            T.reads(B[(i - 1 + 16) % 2, 0])
                            T.writes(C[(i - 1 + 16) % 2, 0])
                            T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0 - i, "async_scope": 1})
                            C[(i - 1 + 16) % 2, 0] = B[(i - 1 + 16) % 2, 0] + T.float32(2.0)
                        with T.sblock(""):
                            T.where(i + 16 - 2 < 16)
                            T.reads(C[0:2, 0])
                            T.writes(D[i - 2 + 16])
                            T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": T.if_then_else(i + 16 - 1 < 16, 1, 0)})
                            D[i - 2 + 16] = C[(i - 2 + 16) % 2, 0] + T.float32(1.0)

# ---- expected output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
#         A_1 = A.view(16)
#         D_1 = D.view(16)
#         B = T.alloc_buffer((2,), "float32", scope="shared")
#         C = T.alloc_buffer((2,), "float32", scope="shared")
#         for i in T.unroll(2):
#             if i < 16:
#                 T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#                 B[i % 2] = A_1[i] * T.float32(2.0)
#             if i == 1 and i - 1 < 16:
#                 T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1})
#                 C[(i - 1) % 2] = B[(i - 1) % 2] + T.float32(2.0)
#         for i in range(14):
#             if i + 2 < 16:
#                 T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#                 B[(i + 2) % 2] = A_1[i + 2] * T.float32(2.0)
#             if i + 2 - 1 < 16:
#                 T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1})
#                 C[(i - 1 + 2) % 2] = B[(i - 1 + 2) % 2] + T.float32(2.0)
#             if i + 2 - 2 < 16:
#                 T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
#                 D_1[i - 2 + 2] = C[(i - 2 + 2) % 2] + T.float32(1.0)
#         for i in T.unroll(2):
#             if i + 16 - 1 < 16:
#                 T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0 - i, "async_scope": 1})
#                 C[(i - 1 + 16) % 2] = B[(i - 1 + 16) % 2] + T.float32(2.0)
#             if i + 16 - 2 < 16:
#                 T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": T.if_then_else(i + 16 - 1 < 16, 1, 0)})
#                 D_1[i - 2 + 16] = C[(i - 2 + 16) % 2] + T.float32(1.0)
