# test: fuzz
# oracles: verify
# seed: 4303
# desc: found by the fuzzers as verify/refutation-not-reproduced (campaign seed 151, program 4303): a refutation at i = 2147483646, though `A[i]` (32 elements) runs in every iteration through the inner `range(3)`; an inner loop of constant bounds and at least one iteration now lets its accesses bound the outer loop

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((2,), "float32"), n: T.int32):
    S = T.alloc_buffer((8,), "float32", scope="local")
    for i in range(n):
        for j in range(3):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                S[(i + j) % 3] = A[i]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
            Out[0] = T.float32(1.0)
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    Out[1] = S[0]
