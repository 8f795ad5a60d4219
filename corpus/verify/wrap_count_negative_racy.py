# test: run
# desc: `(i * 1073741824) // 1073741824 - i` is 0 over unbounded integers, but the product wraps at i = 2 and the count is negative
# run: lazy -> fault: line 13: async_wait_inflight_count is -4 for queue 0; it must be at least 0 at i = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": i * 1073741824 // 1073741824 - i}):
            C[i] = B[i % 2]
