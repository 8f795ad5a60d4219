# test: fuzz
# seed: 2634
# desc: found by the fuzzers as equivalence/fault:output:cross-thread-race (campaign seed 163, program 2634): every thread reads row 0 (`B[(i + 1) % 4 * 2]`) that thread 0 overwrites for the next iteration in the same step; only an anti dependence joins them, and the original ordered them by its barrier between iterations; every writer of memory threads exchange now gets a barrier before it

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((2,), "float32"), Out: T.Buffer((2,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            B = T.alloc_buffer((48,), "float32", scope="shared")
            for j in range(5):
                B[tx * 8 + j] = T.float32(0.0)
            T.tvm_storage_sync("shared")
            for i in T.serial(2, annotations={"software_pipeline_stage": [0, 1, 0], "software_pipeline_order": [1, 0, 2], "software_pipeline_async_stages": []}):
                B[tx * 8 + i % 4 * 2] = In0[i]
                Out[tx] = B[(i + 1) % 4 * 2]
                T.tvm_storage_sync("shared")
