# test: run
# desc: two sibling threadIdx.x scopes of one block are the same threads, with no barrier between them: the second reads what the other thread copied in the first, unordered
# run: lazy -> fault: line 18: read of S[1] (element 1), which was allocated but never written (threadIdx.x = 0, blockIdx.x = 0)

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
            T.evaluate(0)
            B[tx] = S[1 - tx]
