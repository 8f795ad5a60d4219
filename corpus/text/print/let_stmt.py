# test: print
# desc: let bindings in tail position print bare; elsewhere they print as with-blocks

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(8):
        with T.LetStmt(i * 2) as j:
            A[j] = i
        k: T.let[T.int32] = i * 2 + 1
        A[k] = i
