# test: run
# desc: two blocks exchange data through global memory with only `tvm_storage_sync("shared")` between: nothing orders blocks
# run: lazy -> fault: line 11: cross-block race: blockIdx.x = 1 writes C[2] (element 2), read by blockIdx.x = 0 at line 13; nothing orders the blocks of one kernel (threadIdx.x = 0, blockIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), D: T.Buffer((4,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            C[bx * 2 + tx] = A[bx * 2 + tx]
            T.tvm_storage_sync("shared")
            D[bx * 2 + tx] = C[(1 - bx) * 2 + tx]
