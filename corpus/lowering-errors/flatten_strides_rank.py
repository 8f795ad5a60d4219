# test: pass-error
# passes: flatten-buffer
# desc: a buffer with fewer strides than dimensions cannot be flattened; the diagnostic names the alias sharing its data
# error: 11:5: error: buffer `A_2d` cannot be flattened: it has 1 stride for 2 dimensions (it shares its data with `A`, so none of them is flattened)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A_2d = T.decl_buffer((4, 4), "float32", data=A.data, strides=(4,))
    A_2d[1, 2] = A[0]
