# test: run
# desc: an inner loop of extent `n - i` (counting down) whose copies are clipped by `j < 3`: each iteration commits `min(n - i, 3)` groups, summed in closed form (the interval's width while saturated, then a falling series); the read waits for all but the last copy of its iteration, which holds two while `i <= n - 2`
# run: lazy n=9 -> ok

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
        if i <= n - 2:
            C[i % 64] = S[i % 2 * 3]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
