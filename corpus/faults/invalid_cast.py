# test: run
# desc: a float that does not fit the integer type it is cast to
# run: lazy -> fault: line 9: cast of 1000.0 (float32) to int8 is out of range

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "int8")):
    B[0] = T.Cast("int8", A[0] * T.float32(0.0) + T.float32(1000.0))
