# test: run
# desc: two sibling threadIdx.x scopes of one block are the same threads: each waits for its own copy in the first, and the barrier that opens the second orders the copies before the other thread reads them
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                S[tx] = A[tx]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            T.tvm_storage_sync("shared")
            B[tx] = S[1 - tx]
