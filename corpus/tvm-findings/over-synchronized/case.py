# test: tvm-finding
# tvm: over-synchronized
# seed: 2122
# desc: TVM 0.27.0.post1: over-synchronized (tirproof fuzz campaign seed 201, program 2122)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((2,), "float32"), In1: T.Buffer((1,), "float32"), Out1: T.Buffer((2,), "float32"), Out3: T.Buffer((2,), "float32")):
    for i in T.serial(2, annotations={"software_pipeline_stage": [1, 2, 0, 3], "software_pipeline_order": [1, 2, 3, 0], "software_pipeline_async_stages": [1]}):
        S0 = T.alloc_buffer((1,), "float32", scope="local")
        S2 = T.alloc_buffer((1,), "float32", scope="local")
        S0[0] = In0[i]
        Out1[1] = S0[0]
        S2[0] = T.float32(2.5)
        Out3[1] = Out1[1]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((2,), "float32"), In1: T.Buffer((1,), "float32"), Out1: T.Buffer((2,), "float32"), Out3: T.Buffer((2,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(In0[-1:2], Out1[1])
#                 T.writes(Out1[1], Out3[1])
#                 S0 = T.sblock_alloc_buffer((2, 1), scope="local")
#                 S2 = T.sblock_alloc_buffer((1,), scope="local")
#                 with T.sblock(""):
#                     T.reads(In0[-1:2], S0[0:2, 0])
#                     T.writes(S0[0:2, 0], Out1[1], S2[0])
#                     for i in T.unroll(3):
#                         with T.sblock(""):
#                             T.where(1 <= i and i - 1 < 2)
#                             T.reads(In0[i - 1])
#                             T.writes(S0[(i - 1) % 2, 0])
#                             T.attr({"async_commit_queue_scope": 1, "async_scope": 1})
#                             S0[(i - 1) % 2, 0] = In0[i - 1]
#                         with T.sblock(""):
#                             T.where(i == 2 and i - 2 < 2)
#                             T.reads(S0[0:2, 0])
#                             T.writes(Out1[1])
#                             T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": T.if_then_else(1 <= i and i - 1 < 2, 0, 0)})
#                             Out1[1] = S0[(i - 2) % 2, 0]
#                         with T.sblock(""):
#                             T.where(i < 2)
#                             T.reads()
#                             T.writes(S2[0])
#                             S2[0] = T.float32(2.5)
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(Out1[1], S0[0:2, 0])
#                     T.writes(Out3[1], Out1[1])
#                     for i in T.unroll(2):
#                         with T.sblock(""):
#                             T.where(i + 3 - 3 < 2)
#                             T.reads(Out1[1])
#                             T.writes(Out3[1])
#                             Out3[1] = Out1[1]
#                         with T.sblock(""):
#                             T.where(i + 3 - 2 < 2)
#                             T.reads(S0[0:2, 0])
#                             T.writes(Out1[1])
#                             T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#                             Out1[1] = S0[(i - 2 + 3) % 2, 0]
