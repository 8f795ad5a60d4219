# test: fuzz
# oracles: agreement
# seed: 33891
# desc: the mutant (the pass's `wait(4, 1)` in the epilogue loosened to 2) is unsafe only for
# desc: extents the interpreter's usual values (1-7, 13, 31) miss: the read it guards runs when
# desc: (n - 2) % 3 != 1 and n is even, so n = 8. The verifier refuted it and the oracle called
# desc: that a disagreement; it now replays the verifier's counterexample extent, which
# desc: faults. Found by a fuzzing campaign (seed 0, program 33891).

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out4: T.Buffer((2,), "float32"), n: T.int32):
    S1 = T.alloc_buffer((1,), "float32", scope="local")
    S2 = T.alloc_buffer((1,), "float32", scope="local")
    for i in T.serial(n, annotations={"software_pipeline_stage": [3, 4, 6], "software_pipeline_order": [2, 0, 1], "software_pipeline_async_stages": [3, 4]}):
        S1[0] = T.float32(4.0)
        S2[0] = T.float32(1.5)
        if i % 3 != 1 and i % 2 != 1:
            Out4[1] = S2[0]
