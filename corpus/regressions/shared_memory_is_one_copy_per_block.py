# test: fuzz
# oracles: verify
# seed: 43
# desc: found by the fuzzers as verify/refutation-not-reproduced (campaign seed 61, program 43): an async write to shared memory by block 0 and a read by block 1 were held to the cross-thread rule, but shared memory is one copy per block; only threads of one block (under the bindings around both accesses) are related now

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((2,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        S = T.alloc_buffer((8,), "float32", scope="shared")
        S2 = T.decl_buffer((1, 8), "float32", scope="shared", data=S.data)
        for i in range(1):
            for j in range(1):
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[0] = A[j]
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": j})
                Out[bx] = S2[0, i]
