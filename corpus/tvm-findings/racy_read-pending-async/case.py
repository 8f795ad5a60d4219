# test: tvm-finding
# tvm: racy:read-pending-async
# seed: 8
# desc: TVM 0.27.0.post1: racy:read-pending-async (tirproof fuzz campaign seed 211, program 8)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out3: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [2, 0, 2], "software_pipeline_order": [1, 0, 2], "software_pipeline_async_stages": [2]}):
        S1 = T.alloc_buffer((1,), "float32", scope="shared")
        S2 = T.alloc_buffer((1,), "float32", scope="shared")
        S1[0] = T.float32(2.5)
        S2[0] = T.float32(2.5)
        Out3[i] = S1[0]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out3: T.Buffer((1,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads()
#                 T.writes(Out3[0])
#                 S1 = T.sblock_alloc_buffer((1,), scope="shared")
#                 S2 = T.sblock_alloc_buffer((1,), scope="shared")
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes(S2[0])
#                     for i in T.unroll(2):
#                         with T.sblock(""):
#                             T.where(i < 1)
#                             T.reads()
#                             T.writes(S2[0])
#                             S2[0] = T.float32(2.5)
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(S1[0])
#                     T.writes(S1[0], Out3[0])
#                     T.attr({"async_commit_queue_scope": 2})
#                     with T.attr({"async_scope": 1}):
#                         S1[0] = T.float32(2.5)
#                     with T.attr({"async_wait_queue_scope": 2, "async_wait_inflight_count": 0, "async_scope": 1}):
#                         Out3[0] = S1[0]
