# test: run
# desc: twin of triangular_counting_down_clean: the read also runs in the last iteration, whose one copy is still in flight
# run: lazy n=9 -> fault: line 18: read of S[0] (element 0) while an async write to it is pending (group 23 of queue 0, committed at line 13) at i = 8

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    S = T.alloc_buffer((6,), "float32", scope="shared")
    for i in range(n):
        for j in range(n - i):
            if j < 3:
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[i % 2 * 3 + j] = A[(i + j) % 64]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
        T.evaluate(0)
        if i <= n - 1:
            C[i % 64] = S[i % 2 * 3]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
