# test: fuzz
# oracles: waits-tight
# seed: 190
# desc: found by the fuzzers as waits-tight/wait-refuted (campaign seed 139, program 190): a data-flow refutation at i = 2147483645, where `3 + i` wraps; the load runs under `(3 + i) % 3 != 0`, which holds at least every other iteration, so the loop is bounded by it: only a bare `i % m != r` counted before

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((67,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out1: T.Buffer((8,), "float32"), n: T.int32):
    for i in T.serial(3, 3 + n, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0]}):
        if i % 3 != 0:
            Out1[T.Ramp(4, 1, 4)] = In0[T.Ramp(i, 1, 4)]
