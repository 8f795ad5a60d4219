# test: print
# desc: the Let expression

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), x: T.int32):
    v = T.int32()
    A[0] = T.Let(v + v * 2, where={v: x + 1})
