# test: tvm-finding
# tvm: racy:proved
# seed: 3844
# desc: TVM 0.27.0.post1: racy:proved (tirproof fuzz campaign seed 201, program 3844)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [1, 1, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [1]}):
        B = T.alloc_buffer((2,), "float32", scope="shared")
        for j in range(1):
            B[0] = T.float32(0.0)
        if In0[i] > T.float32(0.5):
            B[0] = In0[i]
        Out[i] = B[0]

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
#                 T.reads(In0[-1:1])
#                 T.writes(Out[0])
#                 B = T.sblock_alloc_buffer((2, 2), scope="shared")
#                 with T.sblock(""):
#                     T.reads(In0[-1:1])
#                     T.writes(B[0:2, 0])
#                     for i in T.unroll(2):
#                         with T.sblock(""):
#                             T.where(i == 1 and i - 1 < 1)
#                             T.reads(In0[i - 1])
#                             T.writes(B[(i + 1) % 2, 0])
#                             T.attr({"async_commit_queue_scope": 1})
#                             with T.attr({"async_scope": 1}):
#                                 for j in range(1):
#                                     B[(i - 1) % 2, 0] = T.float32(0.0)
#                             with T.attr({"async_scope": 1}):
#                                 if In0[i - 1] > T.float32(0.5):
#                                     B[(i - 1) % 2, 0] = In0[i - 1]
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(B[0:2, 0])
#                     T.writes(Out[0])
#                     T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#                     Out[0] = B[T.FloorMod(0, 2), 0]
