# test: run
# desc: a `let` reads the slot where it is bound, before the wait that completes the copy, though the value is used after it
# run: lazy -> fault: line 13: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 11) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        v: T.let[T.float32] = B[i % 2]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            C[i] = v
