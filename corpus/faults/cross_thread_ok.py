# test: run
# desc: the same exchange with the wait and a barrier between the copy and the read is correct
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[tx] = A[tx]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            T.tvm_storage_sync("shared")
            C[tx] = B[1 - tx]
