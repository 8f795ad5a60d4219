# test: run
# desc: twin of let_read_before_wait_racy: the `let` is bound after the wait
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            v: T.let[T.float32] = B[i % 2]
            C[i] = v
