# test: run
# desc: twin of symbolic_loop_growing_count_clean: the copy is made at i = 1, after the only wait that completes anything
# run: lazy n=9 -> fault: line 17: read of B[0] (element 0) while an async write to it is pending (group 1 of queue 0, committed at line 11) at i = 1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            if i == 1:
                B[0] = A[0]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.min(i, 1) * 100})
        T.evaluate(0)
        if i >= 1:
            C[i % 64] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
