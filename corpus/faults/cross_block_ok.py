# test: run
# desc: the same exchange through global memory split into two kernel launches is ordered (launches run one after another)
# run: lazy A=arange -> D=[2, 1]
# run: eager -> ok
# run: random:1 -> ok
# run: lazy order=1 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32"), D: T.Buffer((2,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            C[tx] = A[tx]
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            D[tx] = C[1 - tx] + T.float32(1.0)
