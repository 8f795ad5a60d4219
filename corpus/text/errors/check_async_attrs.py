# test: error
# desc: a wait scope without its in-flight count, and a negative count
# error: 11:5: error: `async_wait_queue_scope` must be directly followed by an `async_wait_inflight_count` or `async_wait_tokens` attribute
# error: 13:5: error: negative in-flight count -1

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.attr({"async_wait_queue_scope": 0}):
        A[0] = A[1]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": -1}):
        A[2] = A[3]
