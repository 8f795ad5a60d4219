# test: tvm-finding
# tvm: negative-count
# seed: 38
# desc: TVM 0.27.0.post1: negative-count (tirproof fuzz campaign seed 211, program 38)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((9,), "float32"), In1: T.Buffer((9,), "float32"), Out4: T.Buffer((9,), "float32"), Out5: T.Buffer((1,), "float32")):
    for i in T.serial(1, 2, annotations={"software_pipeline_stage": [0, 0, 0, 0, 1], "software_pipeline_order": [3, 4, 0, 2, 1], "software_pipeline_async_stages": [0]}):
        S0 = T.alloc_buffer((4,), "float32")
        S1 = T.alloc_buffer((4,), "float32")
        S2 = T.alloc_buffer((4,), "float32")
        S3 = T.alloc_buffer((4,), "float32")
        S0[T.Ramp(0, 1, 4)] = In1[T.Ramp(i, 1, 4)]
        S1[T.Ramp(0, 1, 4)] = In1[T.Ramp(i, 1, 4)]
        S2[T.Ramp(0, 1, 4)] = In1[T.Ramp(i, 1, 4)]
        S3[T.Ramp(0, 1, 4)] = In0[T.Ramp(i, 1, 4)]
        Out4[T.Ramp(4, 1, 4)] = S2[T.Ramp(0, 1, 4)]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((9,), "float32"), In1: T.Buffer((9,), "float32"), Out4: T.Buffer((9,), "float32"), Out5: T.Buffer((1,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(In1[1:5], In0[1:5])
#                 T.writes(Out4[4:8])
#                 S0 = T.sblock_alloc_buffer((4,))
#                 S1 = T.sblock_alloc_buffer((4,))
#                 S2 = T.sblock_alloc_buffer((2, 4))
#                 S3 = T.sblock_alloc_buffer((4,))
#                 with T.sblock(""):
#                     T.reads(In1[1:5], In0[1:5])
#                     T.writes(S2[T.Sub(1, 1) % 2, 0:4], S3[0:4], S0[0:4], S1[0:4])
#                     T.attr({"async_commit_queue_scope": 0})
#                     with T.attr({"async_scope": 1}):
#                         S2[T.Sub(1, 1) % 2, 0:4] = In1[T.Ramp(1, 1, 4)]
#                     with T.attr({"async_scope": 1}):
#                         S3[0:4] = In0[T.Ramp(1, 1, 4)]
#                     with T.attr({"async_scope": 1}):
#                         S0[0:4] = In1[T.Ramp(1, 1, 4)]
#                     with T.attr({"async_scope": 1}):
#                         S1[0:4] = In1[T.Ramp(1, 1, 4)]
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(S2[T.Sub(1, 1) % 2, 0:4])
#                     T.writes(Out4[4:8])
#                     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": -1})
#                     Out4[4:8] = S2[T.Sub(1, 1) % 2, T.Ramp(0, 1, 4)]
