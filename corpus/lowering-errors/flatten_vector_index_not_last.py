# test: pass-error
# passes: flatten-buffer
# desc: a vector index outside the last dimension has no flat form (buffer-convention-rfc limits Ramps to the last dimension)
# error: 10:5: error: access to `A` cannot be flattened: index 0 is a vector; only the last index may be one

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    A[T.Ramp(0, 1, 4), 0] = T.Broadcast(T.float32(1.0), 4)
