# test: run
# desc: a store at block level runs in every thread of the block: every thread writes S[0], and the reads after the barrier cannot tell whose write they see
# run: lazy -> fault: line 11: redundant store by every thread: threadIdx.x = 1 writes S[0] (element 0), the same value also written by threadIdx.x = 0 at line 11 with no barrier in between (blockIdx.x = 0, threadIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S[0] = A[0]
        T.tvm_storage_sync("shared")
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            B[tx] = S[0]
