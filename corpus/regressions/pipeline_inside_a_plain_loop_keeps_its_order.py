# test: fuzz
# oracles: waits-tight
# desc: a pipelined loop inside a loop the pass leaves alone: `S0[0]` is written in every
# desc: iteration of both loops, and the write at k0 = 1, k1 = 0 comes after the one at k0 = 0,
# desc: k1 = 1 (the outer loop decides first). The data-flow check compared only the pass's
# desc: provenance (the inner iteration) and reported the two writes reordered. Found by a
# desc: fuzzing campaign (seed 0, program 26169, a mutated text without the outer stages).

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((3,), "float32")):
    A_shared = T.alloc_buffer((2,), "float32", scope="shared")
    for k0 in range(2):
        for j in range(2):
            A_shared[j] = A[k0]
        S0 = T.alloc_buffer((1,), "float32", scope="shared")
        for k1 in T.serial(2, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0], "software_pipeline_async_stages": []}):
            S0[0] = A_shared[k1]
