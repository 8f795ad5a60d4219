# test: pass
# passes: cse-semantic
# desc: what the rules must not equate: (x * 4) // 4 is not x (x * 4 wraps), x // 4 * 4 is not x, (i + 1) % 3 is not i % 3 + 1, a // b // c is not a // (b * c) when b, c are not constants; and x // y never leaves its lazy arm

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, c: T.int32, A: T.Buffer((16,), "int32")):
    A[0] = x * 4 // 4 + x
    A[1] = x // 4 * 4 + x
    A[2] = (x + 1) % 3 + (x % 3 + 1)
    A[3] = x // y // c + x // (y * c)
    A[4] = T.if_then_else(y != 0, x // y, 0) + T.if_then_else(y != 0, x // y, 1)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, c: T.int32, A: T.Buffer((16,), "int32")):
#     cse_v1: T.let[T.bool] = y != 0
#     A[0] = x * 4 // 4 + x
#     A[1] = x // 4 * 4 + x
#     A[2] = (x + 1) % 3 + (x % 3 + 1)
#     A[3] = x // y // c + x // (y * c)
#     A[4] = T.if_then_else(cse_v1, x // y, 0) + T.if_then_else(cse_v1, x // y, 1)
