# test: run
# desc: Triton's pipeliner gives 0 for a wait inside an if after its commit: over-synchronized. Only the prefetch committed after the token's group may stay in flight, on both paths, so the exact count is 1
# run: lazy p=1 -> ok
# run: lazy p=0 -> ok
# run: eager p=1 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((8,), "float32"), p: T.int32):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    P = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i] = A[i]
        tok: T.int64 = T.call_extern("int64", "async_group_token", 0)
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                P[i] = A[i + 8]
        if p > 0:
            with T.attr(0, "async_wait_queue_scope", 0):
                with T.attr(0, "async_wait_inflight_count", 1):
                    with T.attr(0, "async_wait_tokens", tok):
                        C[i] = S[i]
        else:
            C[i] = T.float32(0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
