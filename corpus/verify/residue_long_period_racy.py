# test: run
# desc: twin of residue_long_period_clean: the 100th iteration skips the wait and reads its own copy pending, a fault that first shows at i = 99
# run: lazy n=100 -> fault: line 16: read of B[1] (element 1) while an async write to it is pending (group 99 of queue 0, committed at line 11) at i = 99

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i % 128]
        if i % 100 != 99:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
        C[i % 128] = B[i % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
