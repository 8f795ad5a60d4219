# test: pass
# passes: cse-semantic
# desc: a let of the context is reused for any computation equal to its value (y + x reuses a = x + y), and a let variable equals its value inside computations (a * 2 and (x + y) * 2 are one class)

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, A: T.Buffer((8,), "int32")):
    a: T.let[T.int32] = x + y
    A[0] = y + x
    A[1] = a * 2 + (x + y) * 2

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, A: T.Buffer((8,), "int32")):
#     a: T.let[T.int32] = x + y
#     cse_v1: T.let[T.int32] = a * 2
#     A[0] = a
#     A[1] = cse_v1 + cse_v1
