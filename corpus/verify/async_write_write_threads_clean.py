# test: run
# desc: one thread writes S[0] asynchronously, waits, and a barrier orders that write before the other thread's asynchronous write of the same element
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        if tx == 0:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                S[0] = A[tx]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.tvm_storage_sync("shared")
        if tx == 1:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                S[0] = A[tx]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.tvm_storage_sync("shared")
        B[tx] = S[0]
