# test: run
# desc: thread 0 reads B[0] while thread 1 overwrites it in the same phase (write after read): a race whichever thread runs first, under every schedule
# run: lazy -> fault: line 20: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), read by threadIdx.x = 0 at line 18 with no barrier in between (threadIdx.x = 1)
# run: eager -> fault: line 20: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), read by threadIdx.x = 0 at line 18 with no barrier in between (threadIdx.x = 1)
# run: random:1 -> fault: line 20: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), read by threadIdx.x = 0 at line 18 with no barrier in between (threadIdx.x = 1)
# run: lazy order=1 -> fault: line 18: cross-thread read without barrier: threadIdx.x = 0 reads B[0] (element 0), written by threadIdx.x = 1 at line 20 with no barrier in between (threadIdx.x = 0)
# run: lazy order=2 -> fault: line 20: cross-thread write without barrier: threadIdx.x = 1 writes B[0] (element 0), read by threadIdx.x = 0 at line 18 with no barrier in between (threadIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        B[tx] = A[tx]
        T.tvm_storage_sync("shared")
        if tx == 0:
            C[0] = B[0]
        if tx == 1:
            B[0] = A[1]
