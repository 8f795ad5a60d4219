# test: run
# desc: the first launch drains its copy before it ends; a later launch reads the element, which is complete there whatever its own waits
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), Out: T.Buffer((1,), "float32"), G: T.Buffer((1,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            G[bx] = A[10]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.evaluate(0)
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        Out[0] = G[bx]
