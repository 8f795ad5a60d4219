# test: print
# desc: T.alloc_buffer in shared and local scope, with annotations

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((2, 4), "float32", scope="shared", annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
    L = T.alloc_buffer((4,), "float32", scope="local")
    for i in range(4):
        L[i] = A[i]
        B[0, i] = L[i]
        A[i + 4] = B[0, i]
