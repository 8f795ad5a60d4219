# test: pass
# passes: cse
# desc: Ramp and Broadcast are never bound themselves (later passes match them), but what is inside them is

# from tvm.script import tirx as T

@T.prim_func
def main(i: T.int32, A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    A[T.Ramp(i * 8 % 56, 1, 4)] = B[T.Ramp(i * 8 % 56, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
    A[T.Ramp(i * 8 % 56 + 4, 1, 4)] = B[T.Ramp(i * 8 % 56 + 4, 1, 4)]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(i: T.int32, A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
#     cse_v2: T.let[T.int32] = i * 8 % 56
#     cse_v1: T.let[T.int32] = cse_v2 + 4
#     A[T.Ramp(cse_v2, 1, 4)] = B[T.Ramp(cse_v2, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
#     A[T.Ramp(cse_v1, 1, 4)] = B[T.Ramp(cse_v1, 1, 4)]
