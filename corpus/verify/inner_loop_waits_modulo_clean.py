# test: run
# desc: `1 + j % 2 - j % 2 * j`: the wait at j = 1 has count 0... and at j = 2 count 1; the earlier one completed the copy
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        for j in range(3):
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1 + j % 2 - j % 2 * 2})
            T.evaluate(0)
        C[i] = B[i % 2]
