# test: run
# desc: both threads copy into B[0] asynchronously in one phase, each waiting for its own copy: the copies race, whichever lands or runs first
# run: lazy -> fault: line 16: cross-thread write without wait and barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, also written asynchronously by threadIdx.x = 0 at line 16 (group 0 of queue 0), and no barrier separates that thread's wait from this write (threadIdx.x = 1)
# run: eager -> fault: line 16: cross-thread write without wait and barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, also written asynchronously by threadIdx.x = 0 at line 16 (group 0 of queue 0), and no barrier separates that thread's wait from this write (threadIdx.x = 1)
# run: random:1 -> fault: line 16: cross-thread write without wait and barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, also written asynchronously by threadIdx.x = 0 at line 16 (group 0 of queue 0), and no barrier separates that thread's wait from this write (threadIdx.x = 1)
# run: lazy order=1 -> fault: line 16: cross-thread write without wait and barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, also written asynchronously by threadIdx.x = 0 at line 16 (group 0 of queue 0), and no barrier separates that thread's wait from this write (threadIdx.x = 1)
# run: lazy order=2 -> fault: line 16: cross-thread write without wait and barrier: threadIdx.x = 0 writes B[0] (element 0) asynchronously, also written asynchronously by threadIdx.x = 1 at line 16 (group 0 of queue 0), and no barrier separates that thread's wait from this write (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[0] = A[tx]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            T.tvm_storage_sync("shared")
            C[tx] = B[0]
