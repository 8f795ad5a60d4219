# test: tvm-finding
# tvm: wrong-result
# seed: 206
# desc: TVM 0.27.0.post1: wrong-result (tirproof fuzz campaign seed 201, program 206)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), Out1: T.Buffer((2,), "float32"), Out5: T.Buffer((2,), "float32")):
    for k0 in T.serial(1, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [1, 0], "software_pipeline_async_stages": []}):
        A_shared = T.alloc_buffer((2,), "float32", scope="shared")
        for j in range(1):
            A_shared[j] = A[k0]
        S2 = T.alloc_buffer((1,), "float32", scope="local")
        for k1 in T.serial(2, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [1, 0]}):
            S2[0] = Out1[k1]
            Out5[k1] = S2[0]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(A: T.Buffer((1,), "float32"), Out1: T.Buffer((2,), "float32"), Out5: T.Buffer((2,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(Out1[0:2], A[0])
#                 T.writes(Out5[0:2])
#                 A_shared = T.sblock_alloc_buffer((2,), scope="shared")
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(Out1[0:2], A[0])
#                     T.writes(Out5[0:2], A_shared[0])
#                     with T.sblock(""):
#                         T.reads(Out1[0:2])
#                         T.writes(Out5[0:2])
#                         S2 = T.sblock_alloc_buffer((1,), scope="local")
#                         with T.sblock(""):
#                             T.reads(Out1[0:2], S2[0])
#                             T.writes(S2[0], Out5[0:2])
#                             with T.sblock(""):
#                                 T.reads(Out1[0:2])
#                                 T.writes(S2[0])
#                                 for k1 in T.unroll(2):
#                                     with T.sblock(""):
#                                         T.where(k1 < 2)
#                                         T.reads(Out1[k1])
#                                         T.writes(S2[0])
#                                         S2[0] = Out1[k1]
#                             with T.sblock(""):
#                                 T.reads()
#                                 T.writes()
#                                 T.evaluate(0)
#                             with T.sblock(""):
#                                 T.reads(S2[0])
#                                 T.writes(Out5[0:2])
#                                 for k1 in T.unroll(2):
#                                     with T.sblock(""):
#                                         T.where(k1 + 2 - 2 < 2)
#                                         T.reads(S2[0])
#                                         T.writes(Out5[k1 - 2 + 2])
#                                         Out5[k1 - 2 + 2] = S2[0]
#                     with T.sblock(""):
#                         T.reads(A[0])
#                         T.writes(A_shared[0])
#                         for j in range(1):
#                             A_shared[j] = A[0]
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
