# test: run
# desc: twin of shared_data_condition_clean: the wait leaves the copy of the same evaluation in flight
# run: lazy -> fault: line 16: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 12) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        if A[i] > T.float32(-1.0e30):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
            T.evaluate(0)
            C[i] = B[i % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
