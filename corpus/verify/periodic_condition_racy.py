# test: run
# desc: twin of periodic_condition_clean: the wait runs at i % 3 == 1 only, so the read at i = 3 finds the copy of i = 2 pending
# run: lazy n=9 -> fault: line 18: read of B[0] (element 0) while an async write to it is pending (group 1 of queue 0, committed at line 12) at i = 3

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    for i in range(n):
        if i % 2 == 0:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[i % 64]
        if i % 3 == 1:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
        if i % 2 != 0:
            C[i % 64] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
