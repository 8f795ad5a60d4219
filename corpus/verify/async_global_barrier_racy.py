# test: run
# desc: the barrier comes before each thread's wait, so the other thread may read the global element while its asynchronous copy is in flight
# run: lazy -> fault: line 14: read of G[1] (element 1) while an async write to it is pending by threadIdx.x = 1 (group 0 of queue 0, committed at line 10) (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), G: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            G[tx] = A[tx]
        T.tvm_storage_sync("shared")
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        B[tx] = G[1 - tx]
