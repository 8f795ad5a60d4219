# test: run
# desc: the first launch ends with its copy in flight; the later launch that reads the element cannot complete it
# run: lazy -> fault: line 10: async group never waited: group 0 of queue 0 (committed at line 10) is still in flight when the thread block ends, holding its async store issued at line 11

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), Out: T.Buffer((1,), "float32"), G: T.Buffer((1,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            G[bx] = A[10]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
        T.evaluate(0)
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        Out[0] = G[bx]
