# test: fuzz
# oracles: waits-tight
# seed: 814
# desc: found by the fuzzers as waits-tight/wait-refuted (campaign seed 97, program 814): a counterexample at i = 1610612736, where `i * 4` wraps back into `Out0`, though the store runs every other iteration (`i % 2 != 1`) and would have gone out of bounds long before; such a condition bounds the loop too

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((64,), "float32"), Out0: T.Buffer((128,), "float32"), n: T.int32):
    for i in T.serial(n, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0], "software_pipeline_async_stages": [0]}):
        if i % 2 != 1:
            Out0[T.Ramp(i * 4, 1, 4)] = In1[T.Ramp(i, 1, 4)]
