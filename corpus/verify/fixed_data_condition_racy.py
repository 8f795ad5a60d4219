# test: run
# desc: twin of fixed_data_condition_clean: the wait is under another condition on the same element, which the copies' condition does not imply
# run: lazy -> fault: line 13: write to B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 12) at i = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((4,), "int32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        if K[0] > -100:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i]
        if K[0] > 100:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
        C[i] = T.float32(0.0)
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
