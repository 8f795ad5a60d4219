# test: run
# desc: a loop longer than the fuel allows
# run: lazy fuel=1000 -> fault: line 10: fuel exhausted: the budget of 1000 statements is spent at i = 999

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32")):
    for i in range(200000000):
        A[0] = A[0] + T.float32(1.0)
