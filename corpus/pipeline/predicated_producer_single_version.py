# test: pipeline
# desc: a producer predicated on i % 3 writing a buffer allocated above the loop: consumers may read an earlier iteration's value, so the buffer keeps one version; orders [1, 0] run each consumer before the next producer

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    B[0] = T.float32(0.0)
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [1, 0], "software_pipeline_async_stages": [0]}):
        if i % 3 == 0:
            B[0] = A[i]
        C[i] = B[0] + T.float32(1.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
#     B = T.alloc_buffer((1,), "float32", scope="shared")
#     B[0] = T.float32(0.0)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[0] = A[0]
#     for i in range(15):
#         with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
#             C[i] = B[0] + T.float32(1.0)
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         if (i + 1) % 3 == 0:
#             B[0] = A[i + 1]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[15] = B[0] + T.float32(1.0)
