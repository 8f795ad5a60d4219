# test: run
# desc: an asynchronous store outside every commit scope joins the group of the next commit, which comes after the wait: the read sees it pending
# run: lazy -> fault: line 14: read of S[0] (element 0) while an async write to it is pending (issued at line 12, not yet committed) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_scope": 1}):
            S[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        B[i] = S[i]
        with T.attr({"async_commit_queue_scope": 0}):
            T.evaluate(0)
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
