# test: tvm-finding
# tvm: wrong-result
# seed: 13
# desc: TVM 0.27.0.post1: wrong-result (tirproof fuzz campaign seed 211, program 13)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((3,), "float32"), Out1: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32"), Out3: T.Buffer((3,), "float32")):
    S0 = T.alloc_buffer((1,), "float32", scope="shared")
    for i in T.serial(2, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1]}):
        S0[0] = In1[i]
        Out3[i] = S0[0]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((3,), "float32"), Out1: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32"), Out3: T.Buffer((3,), "float32")):
#         # with T.sblock("root"):
#         S0 = T.sblock_alloc_buffer((1,), scope="shared")
#         with T.sblock(""):
#             T.reads(In1[0:2], S0[0])
#             T.writes(S0[0], Out3[0:2])
#             with T.sblock(""):
#                 T.reads(In1[0])
#                 T.writes(S0[0])
#                 S0[0] = In1[0]
#             with T.sblock(""):
#                 T.reads(In1[1], S0[0])
#                 T.writes(S0[0], Out3[0])
#                 with T.sblock(""):
#                     T.reads(In1[1])
#                     T.writes(S0[0])
#                     S0[0] = In1[1]
#                 with T.sblock(""):
#                     T.reads(S0[0])
#                     T.writes(Out3[0])
#                     Out3[0] = S0[0]
#             with T.sblock(""):
#                 T.reads(S0[0])
#                 T.writes(Out3[1])
#                 Out3[1] = S0[0]
