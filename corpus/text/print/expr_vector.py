# test: print
# desc: Ramp and Broadcast, a 4-lane index into a scalar buffer and into a vector buffer

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), V: T.Buffer((16,), "float32x4"), W: T.Buffer((64,), "float32x4")):
    A[T.Ramp(0, 1, 4)] = A[T.Ramp(4, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
    V[0] = V[1]
    A[T.Ramp(8, 2, 4)] = T.Broadcast(A[0], 4)
    W[T.Ramp(0, 1, 4)] = W[T.Ramp(4, 1, 4)]
