# test: fuzz
# oracles: equivalence
# seed: 1800
# desc: found by the fuzzers as equivalence/fault:output:cross-thread-race (campaign seed 31, program 1800): thread 1 writes `B[tx + i]` in iteration 0 and thread 0 the same element in iteration 1, ordered by the barrier the pass moved to a later stage; shared memory written at indices that move with the iteration now counts as exchanged between threads, which puts a barrier between steps

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((2,), "float32"), Out: T.Buffer((1,), "float32")):
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        B = T.alloc_buffer((28,), "float32", scope="shared")
        for i in T.serial(2, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [1, 0]}):
            B[tx + i] = In0[i]
            T.tvm_storage_sync("shared")
