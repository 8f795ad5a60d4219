# test: run
# desc: the barrier comes before the wait: thread 0 then reads thread 1's copy before thread 1 waited for it (under eager the copy has landed, but the protocol is still violated; under lazy it is still in flight)
# run: eager -> fault: line 16: cross-thread read without wait and barrier: threadIdx.x = 0 reads B[1] (element 1), written asynchronously by threadIdx.x = 1 at line 13 (group 0 of queue 0), which that thread has not waited for (threadIdx.x = 0)
# run: lazy -> fault: line 16: read of B[1] (element 1) while an async write to it is pending by threadIdx.x = 1 (group 0 of queue 0, committed at line 12) (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[tx] = A[tx]
        T.tvm_storage_sync("shared")
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            C[tx] = B[1 - tx]
