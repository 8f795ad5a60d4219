# test: error
# desc: a wait scope without its in-flight count, and a negative count

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.attr({"async_wait_queue_scope": 0}):
        A[0] = A[1]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": -1}):
        A[2] = A[3]
