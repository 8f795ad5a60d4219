# test: error
# desc: a data type name that does not exist
# error: 9:28: error: unknown data type `float31`: expected a data type such as "int32", "float16" or "float32x4", found string "float31"

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float31")):
    A[0] = A[1]
