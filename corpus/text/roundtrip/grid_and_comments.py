# test: roundtrip
# desc: T.grid, comments, blank lines and multi-line calls as people write them
# check: for i in range(4):
# check: for j in range(8):
from tvm.script import tirx as T


@T.prim_func
def main(
    A: T.Buffer((4, 8), "float32"),  # input
    B: T.Buffer((4, 8), "float32"),
):
    # a 2-D copy

    for i, j in T.grid(4, 8):
        B[i, j] = (
            A[i, j]
            + 1.0
        )
