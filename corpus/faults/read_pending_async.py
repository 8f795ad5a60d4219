# test: run
# desc: a wait count one too large: the consumer reads a copy still in flight (the lazy schedule completes nothing unforced)
# run: lazy -> fault: line 16: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 10) at i = 0

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
