# test: run
# desc: Triton's pipeliner gives 0 for a token carried by a `while` loop: over-synchronized. Here the loop's trip count is read from memory (TIR's form of a loop whose end is data) and the token of the prefetched group is carried to the next iteration in a local buffer; only the next prefetch is committed after it, so the exact count is 1 on every path
# run: lazy K=ones -> ok
# run: eager K=ones -> ok
# run: random:5 K=ones -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((9,), "float32"), K: T.Buffer((1,), "int32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((9,), "float32", scope="shared")
    toks = T.alloc_buffer((1,), "int64", scope="local")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    toks[0] = T.call_extern("int64", "async_group_token", 0)
    for i in range(T.max(T.min(K[0] * 8, 8), 0)):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i + 1] = A[i + 1]
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 1):
                with T.attr(0, "async_wait_tokens", toks[0]):
                    C[i] = S[i]
        toks[0] = T.call_extern("int64", "async_group_token", 0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
