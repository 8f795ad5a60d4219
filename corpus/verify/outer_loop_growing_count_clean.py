# test: run
# desc: the wait's count `i * 5` grows with the loop around both the wait and the read: the wait at i = 0 (count 0) completes the copy that every later read needs, though no later instance of the same wait completes anything
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": i * 5})
        T.evaluate(0)
        C[i] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
