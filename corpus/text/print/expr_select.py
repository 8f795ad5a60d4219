# test: print
# desc: T.Select evaluates both arms; T.if_then_else only the taken one

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), x: T.int32):
    A[0] = T.Select(x < 4, x, 4)
    A[1] = T.if_then_else(x != 0, 16 // x, 0)
