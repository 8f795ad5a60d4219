# test: fuzz
# oracles: equivalence, waits-tight
# seed: 256
# desc: found by the fuzzers as waits-tight/wait-over-synchronized (campaign seed 31): `0 + i % 4` is the periodic index `i % 4`; a constant operand on either side is now divided out

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((32,), "float32"), Out: T.Buffer((1,), "float32"), n: T.int32):
    B = T.alloc_buffer((8,), "float32", scope="shared")
    for i in T.serial(n, annotations={"software_pipeline_stage": [2], "software_pipeline_order": [0], "software_pipeline_async_stages": [2]}):
        B[0 + i % 4] = In0[i]
