# test: pass
# passes: cse
# desc: the context is carried through let scopes: a let that already holds a computation is reused (a = x + y serves the later x + y), in statements and in a Let expression

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, A: T.Buffer((8,), "int32")):
    a: T.let[T.int32] = x + y
    A[0] = (x + y) * 2
    A[1] = T.Let(w * (x * y) + (x + y), where={w: x * y})

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, A: T.Buffer((8,), "int32")):
#     w = T.int32()
#     cse_v1: T.let[T.int32] = x * y
#     a: T.let[T.int32] = x + y
#     A[0] = a * 2
#     A[1] = T.Let(w * cse_v1 + a, where={w: cse_v1})
