# test: fuzz
# oracles: waits-tight
# seed: 1108
# desc: found by the fuzzers as waits-tight/wait-refuted (campaign seed 151, program 1108): a race between blocks at i = 409044504, where `i * 21` wraps back into `Out`; the store runs under `i < n` (and, in the pass output, `i + 1 < n - 1`), which holds at every iteration of the loop whenever `n` is at least its end, and then bounds the loop as an unconditional store does

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((42,), "float32"), Out: T.Buffer((672,), "float32"), n: T.int32):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            for i in T.serial(n, annotations={"software_pipeline_stage": [0, 0, 1, 0], "software_pipeline_order": [3, 1, 0, 2], "software_pipeline_async_stages": []}):
                B = T.alloc_buffer((14,), "float32", scope="shared")
                if i < n:
                    B[tx * 2] = In0[i]
                T.tvm_storage_sync("shared")
                if i < n:
                    Out[i * 21 + tx + bx * 7] = B[2]
                T.tvm_storage_sync("shared")
