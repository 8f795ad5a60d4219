# test: tvm-finding
# tvm: over-synchronized
# seed: 58
# peer: tvm-lower
# desc: TVM 0.27.0.post1: over-synchronized (tirproof fuzz campaign seed 212, program 58)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((32,), "float32"), In1: T.Buffer((32,), "float32"), Out0: T.Buffer((32,), "float32"), Out2: T.Buffer((1,), "float32"), n: T.int32):
    for tx in T.thread_binding(1, thread="threadIdx.x"):
        for i in T.serial(n, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [0, 2, 1], "software_pipeline_async_stages": [0]}):
            S1 = T.alloc_buffer((2,), "float32", scope="shared")
            Out0[i] = In0[i]
            S1[tx] = In1[i]
            Out2[tx] = S1[tx]

# ---- TVM's output ----
# # from tvm.script import ir as I
# # from tvm.script import tirx as T
# # from tvm.tirx.layout import Axis
#
# @I.ir_module
# class Module:
#     @T.prim_func(s_tir=True)
#     def main(In0: T.Buffer((32,), "float32"), In1: T.Buffer((32,), "float32"), Out0: T.Buffer((32,), "float32"), Out2: T.Buffer((1,), "float32"), n: T.int32):
#         In0_1 = T.decl_buffer((32,), data=In0.data)
#         In1_1 = T.decl_buffer((32,), data=In1.data)
#         Out0_1 = T.decl_buffer((32,), data=Out0.data)
#         Out2_1 = T.decl_buffer((1,), data=Out2.data)
#         with T.launch_thread("threadIdx.x", 1) as tx:
#             S1 = T.alloc_shared((2,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
#             if 0 < n:
#                 T.attr({"async_commit_queue_scope": 0})
#                 with T.attr({"async_scope": 1}):
#                     Out0_1[0] = In0_1[0]
#                 with T.attr({"async_scope": 1}):
#                     S1[0] = In1_1[0]
#             for i in range(n - 1):
#                 if i + 1 < n:
#                     T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#                     Out0_1[i + 1] = In0_1[i + 1]
#                 if i + 1 - 1 < n:
#                     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#                     Out2_1[0] = S1[0]
#                 if i + 1 < n:
#                     T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#                     S1[0] = In1_1[i + 1]
#             if 1 <= n and n - 1 < n:
#                 T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#                 Out2_1[0] = S1[0]
