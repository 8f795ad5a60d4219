# test: tvm-finding
# tvm: negative-count
# seed: 1165
# desc: TVM 0.27.0.post1: negative-count (tirproof fuzz campaign seed 201, program 1165)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((8,), "float32"), Out0: T.Buffer((8,), "float32"), Out2: T.Buffer((8,), "float32")):
    for i in T.serial(1, 3, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [1, 0, 2], "software_pipeline_async_stages": [0]}):
        S1 = T.alloc_buffer((4,), "float32")
        Out0[T.Ramp(i, 1, 4)] = In1[T.Ramp(i, 1, 4)]
        S1[T.Ramp(0, 1, 4)] = Out0[T.Ramp(4, 1, 4)]
        Out2[T.Ramp(4, 1, 4)] = S1[T.Ramp(0, 1, 4)]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((8,), "float32"), Out0: T.Buffer((8,), "float32"), Out2: T.Buffer((8,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(Out0[4:8], In1[1:6])
#                 T.writes(Out0[1:6], Out2[4:8])
#                 S1 = T.sblock_alloc_buffer((2, 4))
#                 with T.sblock(""):
#                     T.reads(Out0[4:8], In1[1:6])
#                     T.writes(S1[0:2, 0:4], Out0[1:6])
#                     for i in T.unroll(1, 3):
#                         with T.sblock(""):
#                             T.where(i == 2 and i - 1 < 3)
#                             T.reads(Out0[4:8])
#                             T.writes(S1[0:2, 0:4])
#                             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#                             S1[(i - 1 - 1) % 2, 0:4] = Out0[T.Ramp(4, 1, 4)]
#                         with T.sblock(""):
#                             T.where(i < 3)
#                             T.reads(In1[i:i + 4])
#                             T.writes(Out0[i:i + 4])
#                             T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#                             Out0[i:i + 4] = In1[T.Ramp(i, 1, 4)]
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(Out0[4:8], S1[0:2, 0:4])
#                     T.writes(S1[0:2, 0:4], Out2[4:8])
#                     for i in T.unroll(1, 3):
#                         with T.sblock(""):
#                             T.where(i + 2 - 1 < 3)
#                             T.reads(Out0[4:8])
#                             T.writes(S1[0:2, 0:4])
#                             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0 - i})
#                             S1[(i - 1 + 2 - 1) % 2, 0:4] = Out0[T.Ramp(4, 1, 4)]
#                         with T.sblock(""):
#                             T.where(i + 2 - 2 < 3)
#                             T.reads(S1[0:2, 0:4])
#                             T.writes(Out2[4:8])
#                             Out2[4:8] = S1[(i - 2 + 2 - 1) % 2, T.Ramp(0, 1, 4)]
