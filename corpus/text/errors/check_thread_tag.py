# test: error
# desc: thread tags must name a real thread axis

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.w"):
        A[tx] = A[tx]
