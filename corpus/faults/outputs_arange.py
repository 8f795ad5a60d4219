# test: run
# desc: outputs are printed and compared exactly: C = 2 * A + 1 on A = 0, 1, 2, ...
# run: lazy A=arange -> C=[1, 3, 5, 7, 9, 11, 13, 15]

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        C[i] = A[i] * T.float32(2.0) + T.float32(1.0)
