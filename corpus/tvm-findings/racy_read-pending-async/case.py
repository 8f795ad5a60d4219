# test: tvm-finding
# tvm: racy:read-pending-async
# seed: 18
# desc: TVM 0.27.0.post1: racy:read-pending-async (tirproof fuzz campaign seed 201, program 18)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((2,), "float32"), In1: T.Buffer((2,), "float32"), Out3: T.Buffer((2,), "float32")):
    for i in T.serial(2, annotations={"software_pipeline_stage": [0, 0, 1, 1], "software_pipeline_order": [0, 1, 2, 3], "software_pipeline_async_stages": [1]}):
        S0 = T.alloc_buffer((1,), "float32", scope="shared")
        S1 = T.alloc_buffer((1,), "float32", scope="shared")
        S2 = T.alloc_buffer((1,), "float32", scope="shared")
        S0[0] = In0[i]
        S1[0] = In1[i]
        if i != 0:
            S2[0] = T.float32(4.0)
        if i != 0 and i != 0:
            Out3[1] = S2[0]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((2,), "float32"), In1: T.Buffer((2,), "float32"), Out3: T.Buffer((2,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(In0[0:2], In1[0:2])
#                 T.writes(Out3[1])
#                 S0 = T.sblock_alloc_buffer((1,), scope="shared")
#                 S1 = T.sblock_alloc_buffer((1,), scope="shared")
#                 S2 = T.sblock_alloc_buffer((1,), scope="shared")
#                 with T.sblock(""):
#                     T.reads(In0[0], In1[0])
#                     T.writes(S0[0], S1[0])
#                     with T.sblock(""):
#                         T.reads(In0[0])
#                         T.writes(S0[0])
#                         S0[0] = In0[0]
#                     with T.sblock(""):
#                         T.reads(In1[0])
#                         T.writes(S1[0])
#                         S1[0] = In1[0]
#                 with T.sblock(""):
#                     T.reads(In0[1], In1[1], S2[0])
#                     T.writes(S0[0], S1[0], S2[0], Out3[1])
#                     with T.sblock(""):
#                         T.reads(In0[1])
#                         T.writes(S0[0])
#                         S0[0] = In0[1]
#                     with T.sblock(""):
#                         T.reads(In1[1])
#                         T.writes(S1[0])
#                         S1[0] = In1[1]
#                     with T.sblock(""):
#                         T.reads(S2[0])
#                         T.writes(S2[0], Out3[1])
#                         T.attr({"async_commit_queue_scope": 1})
#                         with T.attr({"async_scope": 1}):
#                             if T.NE(0, 0):
#                                 S2[0] = T.float32(4.0)
#                         with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0, "async_scope": 1}):
#                             if T.NE(0, 0) and T.NE(0, 0):
#                                 Out3[1] = S2[0]
#                 with T.sblock(""):
#                     T.reads(S2[0])
#                     T.writes(S2[0], Out3[1])
#                     T.attr({"async_commit_queue_scope": 1})
#                     with T.attr({"async_scope": 1}):
#                         if T.NE(1, 0):
#                             S2[0] = T.float32(4.0)
#                     with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0, "async_scope": 1}):
#                         if T.NE(1, 0) and T.NE(1, 0):
#                             Out3[1] = S2[0]
