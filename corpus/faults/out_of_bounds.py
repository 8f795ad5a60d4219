# test: run
# desc: an index past the end of a buffer
# run: lazy -> fault: line 10: out-of-bounds write of A[8] (shape [8]) at i = 8

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(9):
        A[i] = T.float32(0.0)
