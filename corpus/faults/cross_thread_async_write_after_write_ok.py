# test: run
# desc: the two copies into B[0] in different phases, each waited for before the barrier that ends its phase, are ordered
# run: lazy -> ok
# run: eager -> ok
# run: random:1 -> ok
# run: lazy order=1 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        if tx == 0:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[0]
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
                T.evaluate(0)
        T.tvm_storage_sync("shared")
        if tx == 1:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[1]
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
                T.evaluate(0)
        T.tvm_storage_sync("shared")
        C[tx] = B[0]
