# test: fuzz
# oracles: equivalence
# seed: 833
# desc: found by the fuzzers as equivalence/fault:output:cross-thread-race (campaign seed 71, program 833): thread 0 reads B[2] for iteration 0 and thread 1 writes it for iteration 1 in the same step of the pipelined loop, the read first; the original barrier between them moved to another stage. Threads that exchange data now get a barrier before a producer too, when a read of the step precedes it

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((3,), "float32"), Out: T.Buffer((3,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            B = T.alloc_buffer((16,), "float32", scope="shared")
            for j in range(3):
                B[tx * 4 + j] = T.float32(0.0)
            T.tvm_storage_sync("shared")
            for i in T.serial(2, annotations={"software_pipeline_stage": [1, 2, 0], "software_pipeline_order": [1, 0, 2]}):
                B[tx + i] = In0[i]
                Out[tx] = B[(i + 1) * 2]
                T.tvm_storage_sync("shared")
