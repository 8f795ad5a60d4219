# test: run
# desc: the wait runs once, with a count read from memory that is 0 whatever the data: its only instance completes every group before the reads (proved)
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((4,), "uint8"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        if A[i] > T.float32(-1.0e30):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i] = A[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.Cast("int32", K[0]) % 1})
    T.evaluate(0)
    for i in range(4):
        C[i] = B[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
