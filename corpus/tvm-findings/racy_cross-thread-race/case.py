# test: tvm-finding
# tvm: racy:cross-thread-race
# seed: 384
# desc: TVM 0.27.0.post1: racy:cross-thread-race (tirproof fuzz campaign seed 211, program 384)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            B = T.alloc_buffer((16,), "float32", scope="shared")
            for j in range(1):
                B[tx * 2] = T.float32(0.0)
            for i in T.serial(1, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [2, 0, 1]}):
                B[tx * 2] = In0[i]
                T.tvm_storage_sync("shared")
                B[(tx + 1) % 8 * 2] = B[(tx + 1) % 8 * 2]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
#         # with T.sblock("root"):
#         for bx in T.thread_binding(1, thread="blockIdx.x"):
#             for tx in T.thread_binding(8, thread="threadIdx.x"):
#                 with T.sblock(""):
#                     T.reads(In0[0])
#                     T.writes()
#                     B = T.sblock_alloc_buffer((16,), scope="shared")
#                     for j in range(1):
#                         B[tx * 2] = T.float32(0.0)
#                     with T.sblock(""):
#                         T.reads(In0[0], B[(tx + 1) % 8 * 2])
#                         T.writes(B[T.min(tx, (tx + 1) % 8) * 2:T.min(tx, (tx + 1) % 8) * 2 + (T.max(tx, (tx + 1) % 8) * 2 + 1 - T.min(tx, (tx + 1) % 8) * 2)])
#                         with T.sblock(""):
#                             T.reads(In0[0])
#                             T.writes(B[tx * 2])
#                             with T.sblock(""):
#                                 T.reads()
#                                 T.writes()
#                                 T.tvm_storage_sync("shared", T.bool(False), -1)
#                             with T.sblock(""):
#                                 T.reads(In0[0])
#                                 T.writes(B[tx * 2])
#                                 B[tx * 2] = In0[0]
#                         with T.sblock(""):
#                             T.reads()
#                             T.writes()
#                             T.evaluate(0)
#                         with T.sblock(""):
#                             T.reads(B[(tx + 1) % 8 * 2])
#                             T.writes(B[(tx + 1) % 8 * 2])
#                             B[(tx + 1) % 8 * 2] = B[(tx + 1) % 8 * 2]
