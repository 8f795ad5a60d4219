# test: run
# desc: twin of wrapping_condition_clean: the read is outside the condition, and from i = 1 on no wait runs before it (a verifier that took the sum as unbounded would prove it)
# run: lazy n=4 -> fault: line 17: read of B[1] (element 1) while an async write to it is pending (group 1 of queue 0, committed at line 11) at i = 1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((64,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        if i + 2147483647 > 0:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            T.evaluate(0)
        C[i] = B[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
