# test: pass
# passes: lower-opaque-block,flatten-buffer
# desc: corpus/tvm/seed_a_tx_after_pipeline.py (TVM 0.27 after InjectSoftwarePipeline), lowered and flattened (compare corpus/tvm/seed_a_tx_after_flatten_cse.py, which is also CSE'd)

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
        # with T.sblock("root"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.sblock(""):
                T.reads(A[0:16, tx])
                T.writes(C[0:16, tx])
                B = T.sblock_alloc_buffer((2, 1, 32), scope="shared")
                with T.sblock(""):
                    T.reads(A[0, tx])
                    T.writes(B[T.FloorMod(0, 2), 0, tx])
                    T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                    B[T.FloorMod(0, 2), 0, tx] = A[0, tx] * T.float32(2.0)
                with T.sblock(""):
                    T.reads(A[1:16, tx], B[0:2, 0, tx])
                    T.writes(B[0:2, 0, tx], C[0:15, tx])
                    for i in range(15):
                        with T.sblock(""):
                            T.where(i + 1 < 16)
                            T.reads(A[i + 1, tx])
                            T.writes(B[(i + 1) % 2, 0, tx])
                            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                            B[(i + 1) % 2, 0, tx] = A[i + 1, tx] * T.float32(2.0)
                        with T.sblock(""):
                            T.where(i + 1 - 1 < 16)
                            T.reads(B[(i - 1 + 1) % 2, 0, tx])
                            T.writes(C[i - 1 + 1, tx])
                            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
                            C[i - 1 + 1, tx] = B[(i - 1 + 1) % 2, 0, tx] + T.float32(1.0)
                with T.sblock(""):
                    T.reads(B[T.FloorMod(15, 2), 0, tx])
                    T.writes(C[15, tx])
                    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
                    C[15, tx] = B[T.FloorMod(15, 2), 0, tx] + T.float32(1.0)

# ---- expected output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
#         A_1 = A.view(512)
#         C_1 = C.view(512)
#         for tx in T.thread_binding(32, thread="threadIdx.x"):
#             B = T.alloc_buffer((64,), "float32", scope="shared")
#             with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#                 B[0 % 2 * 32 + tx] = A_1[tx] * T.float32(2.0)
#             for i in range(15):
#                 if i + 1 < 16:
#                     T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#                     B[(i + 1) % 2 * 32 + tx] = A_1[(i + 1) * 32 + tx] * T.float32(2.0)
#                 if i + 1 - 1 < 16:
#                     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#                     C_1[(i - 1 + 1) * 32 + tx] = B[(i - 1 + 1) % 2 * 32 + tx] + T.float32(1.0)
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#             C_1[tx + 480] = B[15 % 2 * 32 + tx] + T.float32(1.0)
