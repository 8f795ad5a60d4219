# test: fuzz
# oracles: verify
# seed: 43
# desc: two sibling launches bound to blockIdx.x are different kernels: the second reads what the first drained, and the verifier must not take their block variables for one thread (found by the fuzzers as verify/refutation-not-reproduced)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((1,), "float32"), G: T.Buffer((1,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            G[bx] = A[10]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.evaluate(0)
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        Out[0] = G[bx]
