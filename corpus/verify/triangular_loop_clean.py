# test: run
# desc: an inner loop of i iterations inside a loop of n: the groups before iteration (i, j) number i * (i - 1) / 2 + j, counted in closed form for every n
# run: lazy n=5 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(n):
        for j in range(i):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[j % 2] = A[(i * 8 + j) % 64]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[(i * 8 + j) % 64] = B[j % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
