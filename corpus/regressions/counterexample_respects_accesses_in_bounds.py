# test: fuzz
# oracles: waits-tight
# desc: found by the fuzzers as waits-tight/wait-refuted (campaign seed 1, program 320): with int32 wrapping the verifier refuted the pass output at i = 1610612736, where `i * 4` wraps back into `Out3`; every iteration before it reads `In0[i * 4 + tx]` out of bounds, so no valid execution gets there; counterexamples now respect the in-bounds precondition (a loop that runs an access every iteration has at most as many iterations as keep it in bounds)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((256,), "float32"), In1: T.Buffer((256,), "float32"), Out1: T.Buffer((256,), "float32"), Out3: T.Buffer((256,), "float32"), n: T.int32):
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for i in T.serial(n, annotations={"software_pipeline_stage": [0, 3], "software_pipeline_order": [1, 0], "software_pipeline_async_stages": [3]}):
            S0 = T.alloc_buffer((4,), "float32", scope="shared")
            S2 = T.alloc_buffer((4,), "float32", scope="shared")
            S0[tx] = In1[i * 4 + tx] * T.float32(1.0)
            Out3[i * 4 + tx] = In0[i * 4 + tx] * (T.float32(0.5) + Out1[i * 4 + tx])
