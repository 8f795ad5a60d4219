# test: run
# desc: a wait and its read under `i % m == m - 1`, m = T.max(d, 1) from a parameter: a residue with a symbolic modulus that is never 0, counted in closed form for every extent and every d
# run: lazy n=9 d=3 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32, d: T.int32):
    B = T.alloc_buffer((64,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        if i % T.max(d, 1) == T.max(d, 1) - 1:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[i] = B[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
