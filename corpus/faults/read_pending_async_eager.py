# test: run
# desc: the same program passes under the eager schedule: only lazy exposes the missing completion deterministically
# run: eager -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = A[0]
    for i in range(15):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[(i + 1) % 2] = A[i + 1]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
            C[i] = B[i % 2]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
        C[15] = B[1]
