# test: run
# desc: 32 threads write S[0] asynchronously; the waits and barrier after come too late to order the writes among themselves
# run: lazy -> fault: line 12: cross-thread write without wait and barrier: threadIdx.x = 1 writes S[0] (element 0) asynchronously, also written asynchronously by threadIdx.x = 0 at line 12 (group 0 of queue 0), and no barrier separates that thread's wait from this write (threadIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    S = T.alloc_buffer((32,), "float32", scope="shared")
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[0] = A[tx]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.tvm_storage_sync("shared")
        B[tx] = S[0]
