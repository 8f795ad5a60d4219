# test: pass
# passes: inject-software-pipeline,lower-opaque-block,flatten-buffer,vectorize-loop,vector-type-rewrite
# desc: a pipelined 4-lane async copy through the whole chain: versioned staging buffer flattened, Ramps rewritten to float32x4 aliases

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16, 4), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        for l in T.vectorized(4):
            B[l] = A[i, l]
        for l in T.vectorized(4):
            C[i * 4 + l] = B[l] + T.float32(1.0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16, 4), "float32"), C: T.Buffer((64,), "float32")):
#     A_1 = A.view(64)
#     A_vec = T.decl_buffer((16,), "float32x4", data=A.data)
#     C_1 = C.view(64)
#     C_vec = T.decl_buffer((16,), "float32x4", data=C.data)
#     B = T.alloc_buffer((8,), "float32", scope="shared")
#     B_vec = T.decl_buffer((2,), "float32x4", scope="shared", data=B.data)
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B_vec[0] = A_vec[0]
#     for i in range(15):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             B_vec[(i + 1) % 2] = A_vec[i + 1]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#         C_vec[i] = B_vec[i % 2] + T.Broadcast(T.float32(1.0), 4)
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C_vec[15] = B_vec[1] + T.Broadcast(T.float32(1.0), 4)
