# test: run
# desc: the copies run only where `i % 3 == 0`, a condition of period 3: counted exactly for every extent, so the wait that is one too loose only from the 68th iteration on (the count switches at i = 67) is refuted
# run: lazy n=70 -> fault: line 16: read of B[1] (element 1) while an async write to it is pending (group 23 of queue 0, committed at line 12) at i = 69

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((72,), "float32"), C: T.Buffer((72,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(n):
        if i % 3 == 0:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i]
        if i % 3 == 0:
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(i < 67, 0, 1)}):
                C[i] = B[i % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
