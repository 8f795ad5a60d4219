# test: pass
# passes: cse-semantic
# desc: floats commute (add-comm, mul-comm, eq-comm, lt-flip) but never reassociate or distribute, and float min/max do not commute (NaN picks the second operand)

# from tvm.script import tirx as T

@T.prim_func
def main(f: T.float32, g: T.float32, h: T.float32, A: T.Buffer((16,), "float32")):
    A[0] = (f + g) * (g + f)
    A[1] = f * g - g * f
    A[2] = f + g + h - (f + (g + h))
    A[3] = f * (g + h) - (f * g + f * h)
    A[4] = T.min(f, g) - T.min(g, f)
    A[5] = T.Select(f < g, f, g) + T.Select(g > f, g, f)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(f: T.float32, g: T.float32, h: T.float32, A: T.Buffer((16,), "float32")):
#     cse_v4: T.let[T.float32] = g + h
#     cse_v3: T.let[T.bool] = f < g
#     cse_v2: T.let[T.float32] = f * g
#     cse_v1: T.let[T.float32] = f + g
#     A[0] = cse_v1 * cse_v1
#     A[1] = cse_v2 - cse_v2
#     A[2] = cse_v1 + h - (f + cse_v4)
#     A[3] = f * cse_v4 - (cse_v2 + f * h)
#     A[4] = T.min(f, g) - T.min(g, f)
#     A[5] = T.Select(cse_v3, f, g) + T.Select(cse_v3, g, f)
