# test: run
# desc: a wait on the token of an older group than the copy the read needs: it completes that group only, and the read faults on the lazy schedule
# run: lazy -> fault: line 19: read of S[0] (element 0) while an async write to it is pending (group 1 of queue 0, committed at line 14)
# run: eager -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    with T.attr(0, "async_commit_queue_scope", 0):
        T.evaluate(0)
    older: T.int64 = T.call_extern("int64", "async_group_token", 0)
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_tokens", older):
            C[0] = S[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
