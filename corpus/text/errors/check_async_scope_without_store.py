# test: error
# desc: an async scope must contain a store
# error: 10:5: error: `async_scope` must contain at least one buffer store

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        T.evaluate(0)
