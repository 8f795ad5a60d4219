# test: pass
# passes: vectorize-loop
# desc: loops that stay serial (tirproof opt --explain says why): a nested loop, a varying if, a varying T.if_then_else, a commit inside, a uniform store, lanes that do not match, a loop-carried dependence, an index that is not affine

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), V: T.Buffer((16,), "float32x4"), C: T.Buffer((16,), "float32")):
    for i in T.vectorized(4):
        for j in range(2):
            C[i * 2 + j] = A[i]
    for i in T.vectorized(4):
        if i < 2:
            C[i] = A[i]
    for i in T.vectorized(4):
        C[i] = T.if_then_else(i < 2, A[i], T.float32(0.0))
    for i in T.vectorized(4):
        with T.attr({"async_commit_queue_scope": 0}):
            with T.attr({"async_scope": 1}):
                C[i + 4] = A[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    for i in T.vectorized(4):
        C[0] = A[i]
    for i in T.vectorized(4):
        V[i] = V[i] + T.Broadcast(T.float32(1.0), 4)
    for i in T.vectorized(4):
        C[i + 1] = C[i] + T.float32(1.0)
    for i in T.vectorized(4):
        C[i % 2] = A[i]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), V: T.Buffer((16,), "float32x4"), C: T.Buffer((16,), "float32")):
#     for i in range(4):
#         for j in range(2):
#             C[i * 2 + j] = A[i]
#     for i in range(4):
#         if i < 2:
#             C[i] = A[i]
#     for i in range(4):
#         C[i] = T.if_then_else(i < 2, A[i], T.float32(0.0))
#     for i in range(4):
#         T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
#         C[i + 4] = A[i]
#     T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#     for i in range(4):
#         C[0] = A[i]
#     for i in range(4):
#         V[i] = V[i] + T.Broadcast(T.float32(1.0), 4)
#     for i in range(4):
#         C[i + 1] = C[i] + T.float32(1.0)
#     for i in range(4):
#         C[i % 2] = A[i]
