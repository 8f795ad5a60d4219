# test: fuzz
# oracles: equivalence, waits-tight
# seed: 2319
# desc: found by the fuzzers as equivalence/fault:output:write-pending-async (campaign seed 21, program 2319): a dead async write into a version of a loop-local staging buffer was still pending when the same version was rewritten seven iterations later; versions reused by a later iteration now wait for the async writes of the earlier one

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32"), n: T.int32):
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 1, 6], "software_pipeline_order": [1, 0, 2], "software_pipeline_async_stages": [6]}):
        B = T.alloc_buffer((2,), "float32", scope="shared")
        for j in range(2):
            B[j] = T.float32(0.0)
        Out[0] = B[1]
        B[0] = T.float32(0.5)
