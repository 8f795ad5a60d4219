# test: run
# desc: a wait at block level that leaves one group in flight: the barrier does not order the copy before the other thread reads it
# run: lazy -> fault: line 17: read of S[1] (element 1) while an async write to it is pending by threadIdx.x = 1 (group 0 of queue 0, committed at line 12) (threadIdx.x = 0, blockIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                S[tx] = A[tx]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
        T.tvm_storage_sync("shared")
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            B[tx] = S[1 - tx]
