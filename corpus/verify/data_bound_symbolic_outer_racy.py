# test: run
# desc: twin of data_bound_symbolic_outer_clean: two slots, no wait inside the inner loop, and a wait that leaves one group in flight
# run: lazy n=6 -> fault: line 13: write to B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 12) at i = 0, j = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), K: T.Buffer((4,), "int32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(n):
        for j in range(K[i % 4] % 3 + 1):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[j % 2] = A[(i * 16 + j) % 64]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
        T.evaluate(0)
        C[i % 64] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
