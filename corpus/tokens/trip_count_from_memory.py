# test: run
# desc: an inner loop whose trip count is read from memory commits between a token and its wait: no closed form counts its groups, so lower-async-tokens counts commits at run time (its dynamic fallback); the count it computes is what the trip count leaves in flight
# run: lazy -> ok
# run: eager -> ok
# run: random:5 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), N: T.Buffer((4,), "int32"), B: T.Buffer((12,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    P = T.alloc_buffer((12,), "float32", scope="shared")
    for i in range(4):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i] = A[i]
        tok: T.int64 = T.call_extern("int64", "async_group_token", 0)
        for j in range(T.max(T.min(N[i], 3), 0)):
            with T.attr(0, "async_commit_queue_scope", 0):
                with T.attr(0, "async_scope", 1):
                    P[i * 3 + j] = B[i * 3 + j]
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_tokens", tok):
                C[i] = S[i]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
