# test: error
# desc: a dedent to a column no enclosing block uses
# error: 12:7: error: unindent does not match any outer indentation level: expected an indentation used by an enclosing block, found 6 columns

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
            A[i] = A[i]
      A[0] = A[1]
