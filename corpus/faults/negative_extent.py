# test: run
# desc: an extent that is negative only at run time is a located fault, for a buffer and for an allocation
# run: lazy n=4 -> fault: line 10: buffer `S` has a negative extent -6
# run: lazy n=12 -> fault: line 11: allocation of `B` with negative extent -1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), n: T.int32):
    S = T.alloc_buffer((n - 10,), "float32", scope="shared")
    B = T.allocate([n - 13], "float32", "global")
    for i in range(4):
        A[i] = T.float32(1)
