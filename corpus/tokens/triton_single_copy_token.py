# test: run
# desc: a wait on a single copy's token: the copy joins the next commit's group, and one group (the prefetch) is committed after it, so the exact count is 1. Triton's pipeliner counts the copy's own commit as well and gives 2, which leaves the copy in flight (its twin, corpus/faults/token_copy_counted_twice.py)
# run: lazy -> ok
# run: eager -> ok

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
            with T.attr(0, "async_wait_inflight_count", 1):
                with T.attr(0, "async_wait_tokens", tok):
                    C[i] = S[i]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
