# test: run
# desc: the count reads memory from i = 1 on (at least 10 whatever the data), so only the wait at i = 0, count 0, completes anything: the copy every read needs
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((4,), "uint8"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(i == 0, 0, T.Cast("int32", K[i]) + 10)})
        T.evaluate(0)
        C[i] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
