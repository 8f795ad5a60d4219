# test: pass
# passes: vectorize-loop
# desc: vectorizable bodies: the loop variable becomes a Ramp, uniform operands a Broadcast; selects on a varying condition, casts, pure intrinsics, lets rebound to vector variables, an if on a uniform condition, async_scope stores

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), I: T.Buffer((64,), "int32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((64,), "int32"), s: T.float32):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    for r in range(8):
        for c in T.vectorized(8):
            x: T.let[T.float32] = A[r, c] * s
            C[r, c] = T.Select(c < 4, x, T.exp(x) - s)
        for c in T.vectorized(4):
            if r % 2 == 0:
                D[r * 8 + c * 2] = I[r * 8 + c] * 3 + T.Cast("int32", A[r, c])
            else:
                D[r * 8 + c * 2] = T.if_then_else(r < 5, I[c], 0)
        with T.attr({"async_commit_queue_scope": 0}):
            for c in T.vectorized(8):
                with T.attr({"async_scope": 1}):
                    S[c] = A[r, c]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        for c in T.vectorized(8):
            C[r, c] = C[r, c] + S[c]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((8, 8), "float32"), I_: T.Buffer((64,), "int32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((64,), "int32"), s: T.float32):
#     S = T.alloc_buffer((8,), "float32", scope="shared")
#     for r in range(8):
#         with T.LetStmt(A[r, T.Ramp(0, 1, 8)] * T.Broadcast(s, 8)) as x:
#             C[r, T.Ramp(0, 1, 8)] = T.Select(T.Ramp(0, 1, 8) < T.Broadcast(4, 8), x, T.exp(x) - T.Broadcast(s, 8))
#         if r % 2 == 0:
#             D[T.Ramp(r * 8, 2, 4)] = I_[T.Ramp(r * 8, 1, 4)] * T.Broadcast(3, 4) + T.Cast("int32x4", A[r, T.Ramp(0, 1, 4)])
#         else:
#             D[T.Ramp(r * 8, 2, 4)] = T.if_then_else(r < 5, I_[T.Ramp(0, 1, 4)], T.Broadcast(0, 4))
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             S[T.Ramp(0, 1, 8)] = A[r, T.Ramp(0, 1, 8)]
#         T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#         C[r, T.Ramp(0, 1, 8)] = C[r, T.Ramp(0, 1, 8)] + S[T.Ramp(0, 1, 8)]
