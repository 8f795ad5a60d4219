# test: tvm-finding
# tvm: racy:write-pending-async
# seed: 4
# desc: TVM 0.27.0.post1: racy:write-pending-async (tirproof fuzz campaign seed 211, program 4)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((32,), "float32"), Out: T.Buffer((1,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32")
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
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
#     def main(In0: T.Buffer((32,), "float32"), Out: T.Buffer((1,), "float32"), n: T.int32):
#         # with T.sblock("root"):
#         B = T.sblock_alloc_buffer((2,))
#         with T.sblock(""):
#             T.reads(In0[0:n])
#             T.writes(B[0])
#             with T.sblock(""):
#                 T.reads()
#                 T.writes()
#                 T.evaluate(0)
#             with T.sblock(""):
#                 T.reads(In0[0:n])
#                 T.writes(B[0])
#                 for i in range(n):
#                     with T.sblock(""):
#                         T.where(i < n)
#                         T.reads(In0[i])
#                         T.writes(B[0])
#                         T.attr({"async_commit_queue_scope": 0})
#                         with T.attr({"async_scope": 1}):
#                             B[0] = In0[i]
#                         with T.attr({"async_scope": 1}):
#                             B[0] = In0[i]
#             with T.sblock(""):
#                 T.reads()
#                 T.writes()
#                 T.evaluate(0)
