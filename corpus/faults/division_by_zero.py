# test: run
# desc: integer floor division by zero traps
# run: lazy -> fault: line 10: integer division by zero: 16 // 0 (int32) at i = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), x: T.int32):
    for i in range(4):
        A[i] = 16 // (i - 2)
