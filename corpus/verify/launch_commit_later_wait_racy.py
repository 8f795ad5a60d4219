# test: run
# desc: the first launch commits a copy and never waits; the wait of a later launch is another kernel's and completes nothing of it
# run: lazy -> fault: line 11: async group never waited: group 0 of queue 0 (committed at line 11) is still in flight when the thread block ends, holding its async store issued at line 12 (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[tx] = A[tx]
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        B[tx] = A[tx]
