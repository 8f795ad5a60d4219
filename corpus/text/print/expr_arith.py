# test: print
# desc: arithmetic operators, precedence and the division families

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), F: T.Buffer((4,), "float32"), x: T.int32, y: T.int32):
    A[0] = x + y * 2 - (x - y)
    A[1] = (x + y) * (x - 1)
    A[2] = x // 4 + x % 4
    A[3] = T.truncdiv(x, 4) + T.truncmod(x, 4)
    A[4] = T.min(x, y) + T.max(x, -3)
    A[5] = x - (y - 1) - 1
    A[6] = 0 - x
    F[0] = F[1] / F[2] - F[3] * T.float32(0.5)
