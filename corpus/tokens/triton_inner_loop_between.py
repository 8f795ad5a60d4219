# test: run
# desc: Triton's pipeliner gives 0 when an inner loop of constant trip count commits between the commit and the wait: over-synchronized. The inner loop's three groups may stay in flight, so the exact count is 3
# run: lazy -> ok
# run: eager -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((24,), "float32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    P = T.alloc_buffer((24,), "float32", scope="shared")
    for i in range(8):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i] = A[i]
        tok: T.int64 = T.call_extern("int64", "async_group_token", 0)
        for j in range(3):
            with T.attr(0, "async_commit_queue_scope", 0):
                with T.attr(0, "async_scope", 1):
                    P[i * 3 + j] = B[i * 3 + j]
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 3):
                with T.attr(0, "async_wait_tokens", tok):
                    C[i] = S[i]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
