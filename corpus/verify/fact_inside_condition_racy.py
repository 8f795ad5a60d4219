# test: run
# desc: twin of fact_inside_condition_clean: the wait's fact is `K[0] > 100`, so for -100 < K[0] <= 100 every iteration copies and only every third waits
# run: lazy m=9 -> fault: line 15: write to B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 14) at i = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), K: T.Buffer((4,), "int32"), m: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for z in range(2):
        B[z] = T.float32(0.0)
    for i in range(m):
        if K[0] > -100 or i % 2 == 1:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i % 64]
        if K[0] > 100 or i % 3 == 2:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[i % 64] = B[i % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
