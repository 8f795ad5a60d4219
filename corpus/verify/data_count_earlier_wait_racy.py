# test: run
# desc: twin of data_count_earlier_wait_clean: the read at i = 2 needs the copy of i = 1, which no wait completes (every count from i = 1 on is at least 10)
# run: lazy -> fault: line 15: read of B[1] (element 1) while an async write to it is pending (group 1 of queue 0, committed at line 11) at i = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((4,), "uint8"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(i == 0, 0, T.Cast("int32", K[i]) + 10)})
        T.evaluate(0)
        C[i] = B[T.max(i - 1, 0)]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
