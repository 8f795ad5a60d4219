# test: run
# desc: the trip count of the inner loop is read from memory in every iteration of the outer loop: each copy is waited for before its read
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), K: T.Buffer((4,), "int32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(4):
        for j in range(K[i] % 3 + 1):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[j % 2] = A[i * 16 + j]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[i * 16 + j] = B[j % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
