# test: roundtrip
# desc: shorthand forms TVM prints: alloc_shared/alloc_local without dtype, view aliases, T.serial with one bound
# check: B = T.alloc_buffer((2,), "float32", scope="shared")
# check: L = T.alloc_buffer((4,), "float16", scope="local")
# check: A_1 = A.view(32)
# check: for i in range(16):
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4, 8), "float32")):
    B = T.alloc_shared((2,))
    L = T.alloc_local((4,), "float16")
    A_1 = A.view(32)
    for i in T.serial(16):
        B[i % 2] = A_1[i]
        L[0] = T.Cast("float16", B[0])
