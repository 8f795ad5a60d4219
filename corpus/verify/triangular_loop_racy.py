# test: run
# desc: twin of triangular_loop_clean: the wait leaves the copy just committed in flight, and the read takes it pending
# run: lazy n=5 -> fault: line 16: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 12) at i = 1, j = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(n):
        for j in range(i):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[j % 2] = A[(i * 8 + j) % 64]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
            T.evaluate(0)
            C[(i * 8 + j) % 64] = B[j % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
