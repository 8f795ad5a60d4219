# test: error
# desc: a dedent to a column no enclosing block uses

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
            A[i] = A[i]
      A[0] = A[1]
