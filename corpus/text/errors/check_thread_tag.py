# test: error
# desc: thread tags must name a real thread axis
# error: 10:43: error: unknown thread tag `threadIdx.w`: expected a tag such as "threadIdx.x", "blockIdx.y" or "vthread", found string "threadIdx.w"

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.w"):
        A[tx] = A[tx]
