# test: run
# desc: the wait at j = 0 of the inner loop (count `T.min(j, 1)` = 0) completes the copy; the last one (count 1) alone would not
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        for j in range(3):
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.min(j, 1)})
            T.evaluate(0)
        C[i] = B[i % 2]
