# test: pass-error
# desc: found by the fuzzers (mutated text): a stage of 2^63 - 1 overflowed into negative buffer extents and wrong code
# error: 7:5: error: pipeline stage 9223372036854775807 is larger than 256, the most supported

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [9223372036854775807], "software_pipeline_order": [0]}):
        Out0[i] = In0[i] * T.float32(2.0)
