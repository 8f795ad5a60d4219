# test: error
# desc: T.where belongs in a block header
# error: 11:9: error: `T.where` outside a block: expected a statement (this form belongs in a `with T.sblock(...)` header), found `T.where`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    for i in range(4):
        T.where(i < 2)
        A[i] = 0
