# test: run
# desc: each thread writes its own element in one scope, and the barrier that opens the next scope orders the writes before the other thread reads
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            S[tx] = A[tx]
        T.tvm_storage_sync("shared")
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            B[tx] = S[1 - tx]
