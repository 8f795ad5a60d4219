# test: fuzz
# oracles: waits-tight
# seed: 1545
# desc: found by the fuzzers as waits-tight/wait-refuted (campaign seed 71): a counterexample at i = 1073741855, where `i * 4` wraps back into `Out0`, though every iteration from 1 on runs the store and would have gone out of bounds long before; a store under `i != c` or `i % m == r` now bounds the loop too

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((32,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((128,), "float32"), n: T.int32):
    for tx in T.thread_binding(1, thread="threadIdx.x"):
        for i in T.serial(n, annotations={"software_pipeline_stage": [2], "software_pipeline_order": [0], "software_pipeline_async_stages": [2]}):
            if i != 0:
                Out0[i * 4] = In0[i]
