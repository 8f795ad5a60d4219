# test: run
# desc: twin of cross_block_global_exchange_racy: each block reads back only its own region of global memory, after the barrier
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), D: T.Buffer((4,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            C[bx * 2 + tx] = A[bx * 2 + tx]
            T.tvm_storage_sync("shared")
            D[bx * 2 + tx] = C[bx * 2 + 1 - tx]
