# test: tvm-finding
# tvm: unwaited-group
# seed: 13
# desc: TVM 0.27.0.post1: unwaited-group (tirproof fuzz campaign seed 201, program 13)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32"), Out3: T.Buffer((1,), "float32")):
    for k0 in T.serial(1, annotations={"software_pipeline_stage": [0, 0, 0], "software_pipeline_order": [1, 0, 2], "software_pipeline_async_stages": []}):
        A_shared = T.alloc_buffer((1,), "float32", scope="shared")
        B_shared = T.alloc_buffer((1,), "float32", scope="shared")
        for j in range(1):
            A_shared[j] = A[k0]
        for j in range(1):
            B_shared[j] = B[k0]
        S1 = T.alloc_buffer((1,), "float32", scope="shared")
        for k1 in T.serial(1, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
            Out2[k0] = Out2[k0]
            Out3[k0] = Out3[k0]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32"), Out3: T.Buffer((1,), "float32")):
#         with T.sblock("root"):
#             T.reads()
#             T.writes()
#             with T.sblock(""):
#                 T.reads(B[0], A[0], Out2[0], Out3[0])
#                 T.writes(Out2[0], Out3[0])
#                 A_shared = T.sblock_alloc_buffer((1,), scope="shared")
#                 B_shared = T.sblock_alloc_buffer((1,), scope="shared")
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads(B[0], A[0], Out2[0], Out3[0])
#                     T.writes(B_shared[0], A_shared[0], Out2[0], Out3[0])
#                     with T.sblock(""):
#                         T.reads(B[0])
#                         T.writes(B_shared[0])
#                         for j in range(1):
#                             B_shared[j] = B[0]
#                     with T.sblock(""):
#                         T.reads(A[0])
#                         T.writes(A_shared[0])
#                         for j in range(1):
#                             A_shared[j] = A[0]
#                     with T.sblock(""):
#                         T.reads(Out2[0], Out3[0])
#                         T.writes(Out2[0], Out3[0])
#                         S1 = T.sblock_alloc_buffer((1,), scope="shared")
#                         with T.sblock(""):
#                             T.reads(Out2[0], Out3[0])
#                             T.writes(Out2[0], Out3[0])
#                             with T.sblock(""):
#                                 T.reads()
#                                 T.writes()
#                                 T.evaluate(0)
#                             with T.sblock(""):
#                                 T.reads(Out2[0], Out3[0])
#                                 T.writes(Out2[0], Out3[0])
#                                 T.attr({"async_commit_queue_scope": 0})
#                                 with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
#                                     Out2[0] = Out2[0]
#                                 with T.attr({"async_scope": 1}):
#                                     Out3[0] = Out3[0]
#                             with T.sblock(""):
#                                 T.reads()
#                                 T.writes()
#                                 T.evaluate(0)
#                 with T.sblock(""):
#                     T.reads()
#                     T.writes()
#                     T.evaluate(0)
