# test: error
# desc: found by the fuzzers (mutated text): a negative buffer extent was accepted
# error: 7:5: error: extent 0 of buffer `S` is negative (-2147483649)

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((T.int64(-2147483649),), "float32", scope="shared")
    for i in range(4):
        S[0] = A[i]
