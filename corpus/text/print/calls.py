# test: print
# desc: pure intrinsics and external calls

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = T.exp(A[1]) + T.sqrt(A[2])
    A[1] = T.call_pure_extern("float32", "fast_tanh", A[3])
    T.evaluate(T.call_extern("int32", "side_effect", 1, 2))
