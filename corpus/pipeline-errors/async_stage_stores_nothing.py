# test: pass-error
# desc: found by the fuzzers (mutated text): an async stage whose statement stores nothing used to get an empty async scope the checker rejects
# error: 7:5: error: statement 0 is in async stage 1 but stores nothing

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32")):
    for i in T.serial(1, 2, annotations={"software_pipeline_stage": [1], "software_pipeline_order": [0], "software_pipeline_async_stages": [1]}):
        T.evaluate(Out0[i])
