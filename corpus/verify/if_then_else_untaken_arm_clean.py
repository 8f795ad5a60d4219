# test: run
# desc: the pending slot is read only in the arm of `T.if_then_else` that is never taken: the arm is not evaluated
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    B[0] = T.float32(0.0)
    B[1] = T.float32(0.0)
    for i in range(16):
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i]
        C[i] = T.if_then_else(i < 0, B[i % 2], A[i])
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
