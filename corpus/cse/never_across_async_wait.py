# test: pass
# passes: cse
# desc: never across an async wait: B[k] is read after the wait that completes its copy, and again after the next copy's wait; the reads are not bound, and no binding goes inside the async_scope, whose body must stay its store

# from tvm.script import tirx as T

@T.prim_func
def main(k: T.int32, A: T.Buffer((16,), "int32"), C: T.Buffer((4,), "int32")):
    B = T.alloc_buffer((4,), "int32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[k % 4] = A[k % 4 * 4] + A[k % 4 * 4 + 1]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    C[0] = B[k % 4] + B[k % 4]
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[k % 4] = A[k % 4 * 4 + 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    C[1] = B[k % 4] + B[k % 4]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(k: T.int32, A: T.Buffer((16,), "int32"), C: T.Buffer((4,), "int32")):
#     cse_v2: T.let[T.int32] = k % 4
#     cse_v1: T.let[T.int32] = cse_v2 * 4
#     B = T.alloc_buffer((4,), "int32", scope="shared")
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[cse_v2] = A[cse_v1] + A[cse_v1 + 1]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[0] = B[cse_v2] + B[cse_v2]
#     with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#         B[cse_v2] = A[cse_v1 + 2]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     C[1] = B[cse_v2] + B[cse_v2]
