# test: pass
# passes: cse
# desc: TVM's test_cse_cascade (the seed walkthrough): the longer computation is bound inside the shorter one

# from tvm.script import tirx as T

@T.prim_func
def main(i1: T.int32, i2: T.int32, i3: T.int32, x: T.int32, y: T.int32, z: T.int32, buffer: T.Buffer((64,), "int32")):
    buffer[i1] = x + y + z
    buffer[i2] = x + y + z
    buffer[i3] = x + y

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(i1: T.int32, i2: T.int32, i3: T.int32, x: T.int32, y: T.int32, z: T.int32, buffer: T.Buffer((64,), "int32")):
#     cse_v2: T.let[T.int32] = x + y
#     cse_v1: T.let[T.int32] = cse_v2 + z
#     buffer[i1] = cse_v1
#     buffer[i2] = cse_v1
#     buffer[i3] = cse_v2
