# test: fuzz
# oracles: waits-tight
# seed: 3188
# desc: found by the fuzzers as waits-tight/wait-over-synchronized (campaign seed 157, program 3188): each thread writes slot `i % 4` of its own row `tx * 8` and reads slot `(i + 1) % 4` of its neighbour's row `(tx + 1) % 5 * 8`; rows 8 apart never overlap slots up to 6, so the slots alone decide the distance (3), and the wait may leave 3 groups in flight; the pass waited for all

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((195,), "float32"), Out: T.Buffer((195,), "float32")):
    for bx in T.thread_binding(3, thread="blockIdx.x"):
        for tx in T.thread_binding(5, thread="threadIdx.x"):
            B = T.alloc_buffer((40,), "float32", scope="shared")
            for j in range(8):
                B[tx * 8 + j] = T.float32(0.0)
            T.tvm_storage_sync("shared")
            for i in T.serial(13, annotations={"software_pipeline_stage": [2, 3, 3, 4], "software_pipeline_order": [3, 0, 1, 2], "software_pipeline_async_stages": [2]}):
                B[tx * 8 + (i + 0) % 4 * 2 + 0] = In0[i * 15 + tx + bx * 5] * T.float32(0.5)
                T.tvm_storage_sync("shared")
                Out[i * 15 + tx + bx * 5] = B[(tx + 1) % 5 * 8 + (i + 1) % 4 * 2] + T.float32(1.0)
                T.tvm_storage_sync("shared")
