# test: pass
# passes: cse
# desc: TVM's test_cse (the seed walkthrough): z1 + z2 is bound where z2 is defined, x + y where y is

# from tvm.script import tirx as T

@T.prim_func
def main(i1: T.int32, i2: T.int32, z3: T.int32, buffer: T.Buffer((64,), "int32")):
    z1: T.let[T.int32] = 1
    z2: T.let[T.int32] = 2
    buffer[i1] = z1 + z2
    x: T.let[T.int32] = 1
    y: T.let[T.int32] = 1
    a: T.let[T.int32] = x + y + (z1 + z2)
    b: T.let[T.int32] = x + y + z3
    buffer[i2] = a + b

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(i1: T.int32, i2: T.int32, z3: T.int32, buffer: T.Buffer((64,), "int32")):
#     z1: T.let[T.int32] = 1
#     z2: T.let[T.int32] = 2
#     cse_v1: T.let[T.int32] = z1 + z2
#     buffer[i1] = cse_v1
#     x: T.let[T.int32] = 1
#     y: T.let[T.int32] = 1
#     cse_v2: T.let[T.int32] = x + y
#     a: T.let[T.int32] = cse_v2 + cse_v1
#     b: T.let[T.int32] = cse_v2 + z3
#     buffer[i2] = a + b
