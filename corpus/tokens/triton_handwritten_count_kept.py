# test: run
# desc: a count written by hand with no token: Triton's pipeliner replaces it with 0 (over-synchronized); tirproof keeps it and checks it. One prefetch is committed after the group the read needs, so 1 is safe and tight
# run: lazy -> ok
# run: eager -> ok
# run: random:9 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((9,), "float32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((9,), "float32", scope="shared")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    for i in range(8):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i + 1] = A[i + 1]
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 1):
                C[i] = S[i]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
