# test: error
# desc: extents written as constant expressions are folded as the program computes them (int8 wraps), and a negative one is refused
# error: 9:5: error: extent 0 of buffer `S` is negative (-5)
# error: 10:5: error: extent 0 of buffer `W` is negative (-128)
# error: 11:5: error: extent 0 of allocation `B` is negative (-1)

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((0 - 5,), "float32", scope="shared")
    W = T.alloc_buffer((T.int8(127) + T.int8(1),), "float32", scope="shared")
    B = T.allocate([-1], "float32", "global")
    for i in range(4):
        S[0] = A[i]
        W[0] = A[i]
