# test: print
# desc: if, elif chains and else

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(16):
        if i < 4:
            A[i] = 0
        elif i < 8:
            A[i] = 1
        else:
            A[i] = 2
        if i == 15:
            A[0] = A[0] + 1
