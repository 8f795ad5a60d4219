# test: run
# desc: both threads write B[0] in one phase (write after write): a race whichever thread runs first, under every schedule
# run: lazy -> fault: line 15: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), also written by threadIdx.x = 0 at line 15 with no barrier in between (threadIdx.x = 1)
# run: eager -> fault: line 15: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), also written by threadIdx.x = 0 at line 15 with no barrier in between (threadIdx.x = 1)
# run: random:1 -> fault: line 15: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), also written by threadIdx.x = 0 at line 15 with no barrier in between (threadIdx.x = 1)
# run: lazy order=1 -> fault: line 15: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), also written by threadIdx.x = 0 at line 15 with no barrier in between (threadIdx.x = 1)
# run: lazy order=2 -> fault: line 15: cross-thread write without barrier: threadIdx.x = 0 writes B[0] (element 0), also written by threadIdx.x = 1 at line 15 with no barrier in between (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        B[0] = A[tx]
        T.tvm_storage_sync("shared")
        C[tx] = B[0]
