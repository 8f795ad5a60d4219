# test: print
# desc: aliases over a parameter's data: a flattened view and a vector-typed view

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((32,), "float32")):
    A_flat = A.view(32)
    A_vec = T.decl_buffer((8,), "float32x4", data=A.data)
    C_vec = T.decl_buffer((8,), "float32x4", data=C.data)
    for i in range(8):
        C_vec[i] = A_vec[i]
    C[0] = A_flat[31]
