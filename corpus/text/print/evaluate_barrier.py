# test: print
# desc: T.evaluate and the shared-memory barrier

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    S = T.alloc_buffer((32,), "float32", scope="shared")
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        S[tx] = A[tx]
        T.tvm_storage_sync("shared")
        A[tx] = S[31 - tx]
        T.evaluate(T.call_extern("int32", "trace", tx))
