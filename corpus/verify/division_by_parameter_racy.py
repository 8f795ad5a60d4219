# test: run
# desc: the wait count i % d leaves the copy just made in flight for d >= 2: the read after it sees it pending
# run: lazy -> fault: line 14: read of S[1] (element 1) while an async write to it is pending (group 1 of queue 0, committed at line 11) at i = 1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), d: T.int32):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.max(i % d, 0)})
        B[i] = S[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
