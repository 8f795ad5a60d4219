# test: run
# desc: thread 1 waits for its copy and thread 0 reads it in the same phase: the copy has landed and been waited for, but no barrier follows the wait, so it races in either order (cross_thread_ok.py is the correct exchange)
# run: lazy -> fault: line 19: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, read by threadIdx.x = 0 at line 23 with no barrier in between (threadIdx.x = 1)
# run: eager -> fault: line 19: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, read by threadIdx.x = 0 at line 23 with no barrier in between (threadIdx.x = 1)
# run: random:1 -> fault: line 19: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0) asynchronously, read by threadIdx.x = 0 at line 23 with no barrier in between (threadIdx.x = 1)
# run: lazy order=1 -> fault: line 23: cross-thread read without wait and barrier: threadIdx.x = 0 reads B[0] (element 0), written asynchronously by threadIdx.x = 1 at line 19 (group 0 of queue 0), and no barrier separates that thread's wait from this read (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        if tx == 0:
            B[0] = T.float32(0.0)
        T.tvm_storage_sync("shared")
        if tx == 1:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[1]
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
                T.evaluate(0)
        if tx == 0:
            C[0] = B[0]
