# test: pass
# passes: cse
# desc: pure calls are computations (T.exp, T.sqrt); impure calls and hints (T.likely), which the interpreter cannot run, are tested in the pass's unit tests

# from tvm.script import tirx as T

@T.prim_func
def main(f: T.float32, A: T.Buffer((8,), "float32")):
    A[0] = T.exp(f) * T.exp(f)
    A[1] = T.sqrt(T.exp(f) + f) - T.sqrt(T.exp(f) + f)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(f: T.float32, A: T.Buffer((8,), "float32")):
#     cse_v2: T.let[T.float32] = T.exp(f)
#     cse_v1: T.let[T.float32] = T.sqrt(cse_v2 + f)
#     A[0] = cse_v2 * cse_v2
#     A[1] = cse_v1 - cse_v1
