# test: pass
# passes: lower-opaque-block
# desc: block annotations over a body that starts with async attributes of its own: the chains nest at the repeated key (two waits on two queues, a commit inside the block's async scope)

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    R = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.sblock("load_s"):
            T.attr({"async_scope": 1})
            with T.attr({"async_commit_queue_scope": 0}):
                S[i] = A[i]
        with T.sblock("load_r"):
            T.attr({"async_commit_queue_scope": 1, "async_scope": 1})
            R[i] = B[i]
        with T.sblock("use"):
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0}):
                C[i] = S[i] + R[i]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
#     S = T.alloc_buffer((8,), "float32", scope="shared")
#     R = T.alloc_buffer((8,), "float32", scope="shared")
#     for i in range(8):
#         with T.attr({"async_scope": 1, "async_commit_queue_scope": 0}):
#             S[i] = A[i]
#         with T.attr({"async_commit_queue_scope": 1, "async_scope": 1}):
#             R[i] = B[i]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0})
#         C[i] = S[i] + R[i]
