# test: run
# desc: two sibling threadIdx.x scopes of one block are the same threads with no barrier between them: the second reads what the other thread wrote in the first, unordered
# run: lazy -> fault: line 14: read of S[1] (element 1), which was allocated but never written (threadIdx.x = 0, blockIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            S[tx] = A[tx]
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            B[tx] = S[1 - tx]
