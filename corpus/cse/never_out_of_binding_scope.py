# test: pass
# passes: cse
# desc: never out of the loop or let that binds a variable: i * 4 + x is bound inside the loop, v * 2 + 1 inside the let; x * y, invariant and unable to trap, is bound before the loop; x // n may divide by zero and the loop may not run, so it is bound inside the loop

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, n: T.int32, A: T.Buffer((256,), "int32")):
    for i in range(n):
        A[i * 4 + x] = i * 4 + x + x * y
        A[i + 32] = x * y + x // n + x // n
    A[127] = T.Let(v * 2 + 1 + (v * 2 + 1), where={v: x + 1})

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, n: T.int32, A: T.Buffer((256,), "int32")):
#     v = T.int32()
#     cse_v4 = T.int32()
#     cse_v1: T.let[T.int32] = x * y
#     for i in range(n):
#         cse_v3: T.let[T.int32] = x // n
#         cse_v2: T.let[T.int32] = i * 4 + x
#         A[cse_v2] = cse_v2 + cse_v1
#         A[i + 32] = cse_v1 + cse_v3 + cse_v3
#     A[127] = T.Let(T.Let(cse_v4 + cse_v4, where={cse_v4: v * 2 + 1}), where={v: x + 1})
