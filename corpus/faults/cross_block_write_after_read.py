# test: run
# desc: blocks of one thread: block 0 reads B[1], which block 1 then overwrites (write after read between blocks)
# run: lazy -> fault: line 15: cross-block race: blockIdx.x = 1 writes B[1] (element 1), read by blockIdx.x = 0 at line 13; nothing orders the blocks of one kernel (blockIdx.x = 1)
# run: eager -> fault: line 15: cross-block race: blockIdx.x = 1 writes B[1] (element 1), read by blockIdx.x = 0 at line 13; nothing orders the blocks of one kernel (blockIdx.x = 1)
# run: random:1 -> fault: line 15: cross-block race: blockIdx.x = 1 writes B[1] (element 1), read by blockIdx.x = 0 at line 13; nothing orders the blocks of one kernel (blockIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        if bx == 0:
            C[0] = B[1]
        if bx == 1:
            B[1] = T.float32(0.0)
