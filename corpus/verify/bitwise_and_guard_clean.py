# test: run
# desc: a commit and a wait under `(i < 8) & (i >= 0)`, a condition TVM prints with `&`: two intervals, counted in closed form (no bounded enumeration)
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(100):
        if (i < 80) & (i >= 0):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i]
        if (i < 80) & (i >= 0):
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
                C[i] = B[i % 2]
