# test: print
# desc: thread launches in bare and with-forms

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((256,), "float32")):
    with T.launch_thread("blockIdx.x", 8) as bx:
        A[bx] = T.float32(0.0)
    with T.launch_thread("threadIdx.x", 32) as tx:
        A[tx + 32] = T.float32(1.0)
