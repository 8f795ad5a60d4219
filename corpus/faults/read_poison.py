# test: run
# desc: reading allocated memory that was never written
# run: lazy -> fault: line 12: read of B[1] (element 1), which was allocated but never written at i = 1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    B[0] = T.float32(1.0)
    for i in range(4):
        A[i] = B[i]
