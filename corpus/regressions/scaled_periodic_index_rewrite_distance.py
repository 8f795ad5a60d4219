# test: fuzz
# oracles: equivalence, waits-tight
# seed: 583
# desc: found by the fuzzers as waits-tight/wait-over-synchronized (campaign seed 21, program 583): the index `i % 4 * 2` was not recognised as periodic, so the async writer waited for its own previous write; a constant factor of both indices is now divided out

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((3,), "float32"), Out: T.Buffer((1,), "float32")):
    B = T.alloc_buffer((8,), "float32", scope="local")
    for i in T.serial(2, annotations={"software_pipeline_stage": [2], "software_pipeline_order": [0], "software_pipeline_async_stages": [2]}):
        B[i % 4 * 2] = In0[i]
