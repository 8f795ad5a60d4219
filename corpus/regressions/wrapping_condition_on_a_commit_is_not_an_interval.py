# test: fuzz
# oracles: verify
# seed: 2783
# desc: a commit under `not i + 2147483647 > 0`, which wraps from i = 1 on: the condition is not an interval of unbounded integers; the verifier refuted a clean program by counting no commits at all

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((1,), "float32"), n: T.int32):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S = T.alloc_buffer((8,), "float32", scope="shared")
        for z in range(1):
            S[0] = T.float32(0.0)
        for i in range(n):
            for j in range(1):
                if not i + 2147483647 > 0:
                    T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                    S[3] = A[i]
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
                v: T.let[T.float32] = S[0]
                Out[0] = v
