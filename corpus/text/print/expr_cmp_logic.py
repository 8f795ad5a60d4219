# test: print
# desc: comparisons and boolean connectives

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), x: T.int32):
    if x < 4 and x >= 0 or not x != 2:
        A[0] = 1
    if (x == 1) == (x <= 3):
        A[1] = 2
    if (x > 0 or x < -4) and x != 7:
        A[2] = 3
