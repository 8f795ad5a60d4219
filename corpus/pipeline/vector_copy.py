# test: pipeline
# desc: a 4-lane asynchronous copy into shared memory

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]
        C[T.Ramp(i * 4, 1, 4)] = B[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1.0), 4)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
#     B = T.alloc_buffer((2, 4), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0, T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)]
#     for i in range(15):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B[(i + 1) % 2, T.Ramp(0, 1, 4)] = A[T.Ramp((i + 1) * 4, 1, 4)]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#         C[T.Ramp(i * 4, 1, 4)] = B[i % 2, T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[T.Ramp(60, 1, 4)] = B[1, T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
