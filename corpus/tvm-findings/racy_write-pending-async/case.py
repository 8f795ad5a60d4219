# test: tvm-finding
# tvm: racy:write-pending-async
# seed: 9
# desc: TVM 0.27.0.post1: racy:write-pending-async (tirproof fuzz campaign seed 201, program 9)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [1, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [1]}):
        B = T.alloc_buffer((2,), "float32", scope="shared")
        B[0] = In0[i]
        B[0] = In0[i]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(In0[0])
#                 T.writes()
#                 B = T.sblock_alloc_buffer((2,), scope="shared")
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(In0[0])
#                     T.writes(B[0])
#                     T.attr({"async_commit_queue_scope": 1})
#                     with T.attr({"async_scope": 1}):
#                         B[0] = In0[0]
#                     with T.attr({"async_scope": 1}):
#                         B[0] = In0[0]
