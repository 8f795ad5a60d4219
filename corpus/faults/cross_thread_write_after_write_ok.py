# test: run
# desc: the two writes to B[0] in different phases are ordered by the barrier between them
# run: lazy A=arange -> C=[1, 1]
# run: eager -> ok
# run: random:1 -> ok
# run: lazy order=1 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        if tx == 0:
            B[0] = A[0]
        T.tvm_storage_sync("shared")
        if tx == 1:
            B[0] = A[1]
        T.tvm_storage_sync("shared")
        C[tx] = B[0]
