# test: run
# desc: the copy's slot `(i + 2147483647 + 2147483647 + 3) % 3` wraps to `(i + 1) % 3`, the slot the read takes while that copy is in flight; over unbounded integers it would be `(i + 2) % 3`
# run: lazy -> fault: line 16: read of B[1] (element 1) while an async write to it is pending (group 0 of queue 0, committed at line 13) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((3,), "float32", scope="shared")
    for k in range(3):
        B[k] = T.float32(0.0)
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[(i + 2147483647 + 2147483647 + 3) % 3] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
            C[i] = B[(i + 1) % 3]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
