# test: tvm-finding
# tvm: unwaited-group
# seed: 24
# desc: TVM 0.27.0.post1: unwaited-group (tirproof fuzz campaign seed 211, program 24)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out1: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [1, 0], "software_pipeline_async_stages": [2]}):
        S0 = T.alloc_buffer((1,), "float32")
        S0[0] = In0[i]
        Out1[i] = In1[i]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out1: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(In0[0:2], In1[0])
#                 T.writes(Out1[0])
#                 S0 = T.sblock_alloc_buffer((1,))
#                 with T.sblock(""):
#                     T.reads(In0[0:2])
#                     T.writes(S0[0])
#                     for i in T.unroll(2):
#                         with T.sblock(""):
#                             T.where(i < 1)
#                             T.reads(In0[i])
#                             T.writes(S0[0])
#                             S0[0] = In0[i]
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(In1[0])
#                     T.writes(Out1[0])
#                     T.attr({"async_commit_queue_scope": 2, "async_scope": 1})
#                     Out1[0] = In1[0]
