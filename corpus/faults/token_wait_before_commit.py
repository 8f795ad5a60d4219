# test: run
# desc: a wait on a copy's token before the copy is committed: no count completes a group that does not exist yet, so it is a fault, not a wait for everything
# run: lazy -> fault: line 13: the wait on queue 0 names a token (queue 0, group 0) (made at line 12), but the thread has committed 0 group(s) to it: no wait completes a group before its commit

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    with T.attr(0, "async_scope", 1):
        S[0] = A[0]
    tok: T.int64 = T.call_extern("int64", "async_copy_token", 0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_tokens", tok):
            C[0] = S[0]
    with T.attr(0, "async_commit_queue_scope", 0):
        T.evaluate(0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
