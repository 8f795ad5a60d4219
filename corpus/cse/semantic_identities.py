# test: pass
# passes: cse-semantic
# desc: rules add-zero, sub-zero, mul-one, floordiv-one, add-sub-cancel: a computation equal to a variable is replaced by it (the dropped operand cannot fault)

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, A: T.Buffer((16,), "int32")):
    A[0] = (x + 0) * (x + y)
    A[1] = (x - 0) * (y * 1)
    A[2] = x // 1 + (x + y - y)
    A[3] = (x + y) * 1 + (x + y)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, A: T.Buffer((16,), "int32")):
#     cse_v1: T.let[T.int32] = x + y
#     A[0] = x * cse_v1
#     A[1] = x * y
#     A[2] = x + x
#     A[3] = cse_v1 + cse_v1
