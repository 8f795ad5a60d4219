# test: run
# desc: the same read and overwrite with a barrier in between are ordered
# run: lazy -> ok
# run: eager -> ok
# run: random:1 -> ok
# run: lazy order=1 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        B[tx] = A[tx]
        T.tvm_storage_sync("shared")
        if tx == 0:
            C[0] = B[0]
        T.tvm_storage_sync("shared")
        if tx == 1:
            B[0] = A[1]
