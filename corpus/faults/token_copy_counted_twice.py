# test: run
# desc: the count Triton gives for a wait on a single copy's token (2: the copy's own commit counted too) leaves the copy in flight; the claim its token makes is a fault before the read
# run: lazy -> fault: line 20: async_wait_inflight_count 2 leaves group 0 of queue 0 (committed at line 15) in flight, which its tokens name (made at line 12) (2 committed; at most 1 completes it) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    P = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        tok: T.int64 = T.call_extern("int64", "async_copy_token", 0)
        with T.attr(0, "async_scope", 1):
            S[i] = A[i]
        with T.attr(0, "async_commit_queue_scope", 0):
            T.evaluate(0)
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                P[i] = A[i + 8]
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 2):
                with T.attr(0, "async_wait_tokens", tok):
                    C[i] = S[i]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
