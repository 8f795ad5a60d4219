# test: run
# desc: a commit in one arm of an if on data between a token and its wait: the groups committed before the wait depend on the path, so no count is a closed form; lower-async-tokens counts commits at run time instead (its dynamic fallback)
# run: lazy -> ok
# run: eager -> ok
# run: random:3 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), M: T.Buffer((8,), "int32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    P = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i] = A[i]
        tok: T.int64 = T.call_extern("int64", "async_group_token", 0)
        if M[i] > 0:
            with T.attr(0, "async_commit_queue_scope", 0):
                with T.attr(0, "async_scope", 1):
                    P[i] = A[i]
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_tokens", tok):
                C[i] = S[i]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
