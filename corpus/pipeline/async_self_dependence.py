# test: pipeline
# desc: an async statement reads what it wrote in the previous iteration (a running sum in a parameter); it waits for its own queue with the exact count, leaving the other run's group in flight

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32"), D: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    for k in T.serial(8, annotations={"software_pipeline_stage": [0, 1, 0], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
        C[0] = C[0] + A[k]
        D[k] = B[k] * T.float32(2.0)
        E[k] = A[k] + B[k]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32"), D: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         C[0] = C[0] + A[0]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         E[0] = A[0] + B[0]
#     for k in range(7):
#         with T.attr({"async_commit_queue_scope": 0, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
#             C[0] = C[0] + A[k + 1]
#         D[k] = B[k] * T.float32(2.0)
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         E[k + 1] = A[k + 1] + B[k + 1]
#     D[7] = B[7] * T.float32(2.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     T.evaluate(0)
