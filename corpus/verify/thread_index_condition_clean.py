# test: run
# desc: the condition tx == k around a commit and its wait is an interval of k for each thread: thread tx commits at k = tx only, and waits for it there
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for k in range(4):
            if tx == k:
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[k] = A[k]
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
                T.evaluate(0)
        B[tx] = S[tx]
