# test: pipeline
# desc: statement 0 reads B[i + 1] before statement 1 overwrites it in the next iteration: an anti-dependence only, which orders [0, 1] respect

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((17,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [1, 0], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        C[i] = B[i + 1] + T.float32(1.0)
        B[i] = A[i]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), B: T.Buffer((17,), "float32"), C: T.Buffer((16,), "float32")):
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0] = A[0]
#     for i in range(15):
#         C[i] = B[i + 1] + T.float32(1.0)
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         B[i + 1] = A[i + 1]
#     C[15] = B[16] + T.float32(1.0)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     T.evaluate(0)
