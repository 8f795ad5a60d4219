# test: run
# desc: block 1 reads what block 0 wrote to global memory; tvm_storage_sync orders the threads of one block only, and nothing orders the blocks of a kernel
# run: lazy -> fault: line 19: cross-block race: blockIdx.x = 1 reads C[1] (element 1), written by blockIdx.x = 0 at line 16; nothing orders the blocks of one kernel (threadIdx.x = 0, blockIdx.x = 1)
# run: eager -> fault: line 19: cross-block race: blockIdx.x = 1 reads C[1] (element 1), written by blockIdx.x = 0 at line 16; nothing orders the blocks of one kernel (threadIdx.x = 0, blockIdx.x = 1)
# run: random:1 -> fault: line 19: cross-block race: blockIdx.x = 1 reads C[1] (element 1), written by blockIdx.x = 0 at line 16; nothing orders the blocks of one kernel (threadIdx.x = 0, blockIdx.x = 1)
# run: lazy order=1 -> fault: line 19: cross-block race: blockIdx.x = 1 reads C[1] (element 1), written by blockIdx.x = 0 at line 16; nothing orders the blocks of one kernel (threadIdx.x = 0, blockIdx.x = 1)
# run: lazy order=2 -> fault: line 19: cross-block race: blockIdx.x = 1 reads C[0] (element 0), written by blockIdx.x = 0 at line 16; nothing orders the blocks of one kernel (threadIdx.x = 1, blockIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32"), D: T.Buffer((2,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            if bx == 0:
                C[tx] = A[tx]
            T.tvm_storage_sync("shared")
            if bx == 1:
                D[tx] = C[1 - tx] + T.float32(1.0)
