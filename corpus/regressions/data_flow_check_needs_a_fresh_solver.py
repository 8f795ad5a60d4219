# test: fuzz
# oracles: waits-tight
# desc: a nested symbolic pipeline (found by the fuzzers as waits-tight/verifier-unknown, campaign seed 0, program 81): one of its 44,000 data-flow checks ran out of time on the incremental solver though a fresh solver decides it in milliseconds; checks now fall back to a fresh solver

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((320,), "float32"), Out0: T.Buffer((64,), "float32"), Out1: T.Buffer((64,), "float32"), Out3: T.Buffer((64,), "float32"), Out5: T.Buffer((64,), "float32"), n: T.int32):
    for k0 in T.serial(n, annotations={"software_pipeline_stage": [2, 4], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [2]}):
        A_shared = T.alloc_buffer((5,), "float32", scope="shared")
        for j in range(5):
            A_shared[j] = A[k0 * 5 + j]
        for k1 in T.serial(5, annotations={"software_pipeline_stage": [1, 2, 2, 4, 4, 5], "software_pipeline_order": [0, 1, 5, 4, 2, 3], "software_pipeline_async_stages": [1, 2, 4, 5]}):
            S2 = T.alloc_buffer((1,), "float32", scope="local")
            S4 = T.alloc_buffer((1,), "float32", scope="local")
            Out0[k0] = Out0[k0] + A_shared[k1] * T.float32(2.5)
            Out1[k0] = Out1[k0] + A_shared[k1] * T.float32(3.5)
            S2[0] = A_shared[k1] * T.float32(1.0)
            Out3[k0] = Out3[k0] + (T.float32(4.0) + S2[0])
            S4[0] = A_shared[k1] * (T.float32(0.5) + S2[0])
            Out5[k0] = Out5[k0] + (T.float32(0.5) + S2[0] + S4[0])
