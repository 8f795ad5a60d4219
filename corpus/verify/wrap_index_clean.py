# test: run
# desc: twin of wrap_index_racy: reading `(i + 2) % 3`, the slot written two iterations earlier, which the wait completed
# run: lazy -> ok

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
            C[i] = B[(i + 2) % 3]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
