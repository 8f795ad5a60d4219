# test: pipeline
# desc: an inner pipelined loop inside an outer pipelined loop (GEMM-shaped); queues of the two pipelines stay apart

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((1,), "float32")):
    for k0 in T.serial(8, annotations={"software_pipeline_stage": [0, 0, 2], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
        A_shared = T.alloc_buffer((4,), "float32", scope="shared")
        B_shared = T.alloc_buffer((4,), "float32", scope="shared")
        for j in range(4):
            A_shared[j] = A[k0 * 4 + j]
        for j in range(4):
            B_shared[j] = B[k0 * 4 + j]
        for k1 in T.serial(4, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [0, 1, 2], "software_pipeline_async_stages": [0]}):
            A_local = T.alloc_buffer((1,), "float32", scope="local")
            B_local = T.alloc_buffer((1,), "float32", scope="local")
            A_local[0] = A_shared[k1]
            B_local[0] = B_shared[k1]
            C[0] = C[0] + A_local[0] * B_local[0]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((1,), "float32")):
#     A_shared = T.alloc_buffer((3, 4), "float32", scope="shared")
#     B_shared = T.alloc_buffer((3, 4), "float32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 1}):
#         with T.attr({"async_scope": 1}):
#             for j in range(4):
#                 A_shared[0, j] = A[j]
#         T.attr({"async_scope": 1})
#         for j in range(4):
#             B_shared[0, j] = B[j]
#     with T.attr({"async_commit_queue_scope": 1}):
#         with T.attr({"async_scope": 1}):
#             for j in range(4):
#                 A_shared[1, j] = A[4 + j]
#         T.attr({"async_scope": 1})
#         for j in range(4):
#             B_shared[1, j] = B[4 + j]
#     for k0 in range(6):
#         with T.attr({"async_commit_queue_scope": 1}):
#             with T.attr({"async_scope": 1}):
#                 for j in range(4):
#                     A_shared[(k0 + 2) % 3, j] = A[(k0 + 2) * 4 + j]
#             T.attr({"async_scope": 1})
#             for j in range(4):
#                 B_shared[(k0 + 2) % 3, j] = B[(k0 + 2) * 4 + j]
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 2})
#         A_local = T.alloc_buffer((2, 1), "float32", scope="local")
#         B_local = T.alloc_buffer((2, 1), "float32", scope="local")
#         with T.attr({"async_commit_queue_scope": 0}):
#             with T.attr({"async_scope": 1}):
#                 A_local[0, 0] = A_shared[k0 % 3, 0]
#             T.attr({"async_scope": 1})
#             B_local[0, 0] = B_shared[k0 % 3, 0]
#         for k1 in range(3):
#             with T.attr({"async_commit_queue_scope": 0}):
#                 with T.attr({"async_scope": 1}):
#                     A_local[(k1 + 1) % 2, 0] = A_shared[k0 % 3, k1 + 1]
#                 T.attr({"async_scope": 1})
#                 B_local[(k1 + 1) % 2, 0] = B_shared[k0 % 3, k1 + 1]
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#             C[0] = C[0] + A_local[k1 % 2, 0] * B_local[k1 % 2, 0]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         C[0] = C[0] + A_local[1, 0] * B_local[1, 0]
#     with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
#         A_local = T.alloc_buffer((2, 1), "float32", scope="local")
#         B_local = T.alloc_buffer((2, 1), "float32", scope="local")
#         with T.attr({"async_commit_queue_scope": 0}):
#             with T.attr({"async_scope": 1}):
#                 A_local[0, 0] = A_shared[0, 0]
#             T.attr({"async_scope": 1})
#             B_local[0, 0] = B_shared[0, 0]
#         for k1 in range(3):
#             with T.attr({"async_commit_queue_scope": 0}):
#                 with T.attr({"async_scope": 1}):
#                     A_local[(k1 + 1) % 2, 0] = A_shared[0, k1 + 1]
#                 T.attr({"async_scope": 1})
#                 B_local[(k1 + 1) % 2, 0] = B_shared[0, k1 + 1]
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#             C[0] = C[0] + A_local[k1 % 2, 0] * B_local[k1 % 2, 0]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         C[0] = C[0] + A_local[1, 0] * B_local[1, 0]
#     T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#     A_local = T.alloc_buffer((2, 1), "float32", scope="local")
#     B_local = T.alloc_buffer((2, 1), "float32", scope="local")
#     with T.attr({"async_commit_queue_scope": 0}):
#         with T.attr({"async_scope": 1}):
#             A_local[0, 0] = A_shared[1, 0]
#         T.attr({"async_scope": 1})
#         B_local[0, 0] = B_shared[1, 0]
#     for k1 in range(3):
#         with T.attr({"async_commit_queue_scope": 0}):
#             with T.attr({"async_scope": 1}):
#                 A_local[(k1 + 1) % 2, 0] = A_shared[1, k1 + 1]
#             T.attr({"async_scope": 1})
#             B_local[(k1 + 1) % 2, 0] = B_shared[1, k1 + 1]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
#         C[0] = C[0] + A_local[k1 % 2, 0] * B_local[k1 % 2, 0]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[0] = C[0] + A_local[1, 0] * B_local[1, 0]
