# test: run
# desc: twin of triangular_inner_loop_clean: the wait lets the copy just issued stay in flight
# run: lazy -> fault: line 15: read of B[4] (element 4) while an async write to it is pending (group 0 of queue 0, committed at line 12) at i = 1, j = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32", scope="shared")
    for i in range(4):
        for j in range(i):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i * 4 + j] = A[i * 4 + j]
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
                C[i * 4 + j] = B[i * 4 + j]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
