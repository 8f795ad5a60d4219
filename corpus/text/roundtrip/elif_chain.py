# test: roundtrip
# desc: elif chains and nested else branches
# check: elif i == 1:
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    for i in range(4):
        if i == 0:
            A[i] = 0
        else:
            if i == 1:
                A[i] = 1
            else:
                A[i] = 2
