# test: fuzz
# oracles: round-trip
# desc: found by the fuzzers as round-trip/round-trip-changed (campaign seed 0, program 5688, mutated text): the pass left an empty body that prints as T.evaluate(0)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [1], "software_pipeline_order": [0]}):
        if i != 0:
            Out0[i] = In1[i]
