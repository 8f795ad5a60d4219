# test: fuzz
# oracles: verify
# seed: 15931
# desc: found by the fuzzers as verify/refutation-not-reproduced (campaign seed 167, program 15931): a true refutation at n = 715827884, where `i * 3` wraps and the store of j = 1 lands in the slot read right after a wait that leaves it in flight; the interpreter cannot run 1.4 billion iterations, so a counterexample too long to replay is a skip, not a disagreement

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((2,), "float32"), n: T.int32):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S = T.alloc_buffer((8,), "float32", scope="shared")
        for z in range(3):
            S[z] = T.float32(0.0)
        for i in range(n):
            for j in range(2):
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[(i * 3 + j) % 3] = A[j]
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
                v: T.let[T.float32] = S[(j - 1) % 3]
                Out[0] = T.float32(2.0)
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        Out[1] = T.float32(1.0)
