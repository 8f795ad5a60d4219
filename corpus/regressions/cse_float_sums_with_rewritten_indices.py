# test: fuzz
# oracles: cse
# desc: cse-semantic rewrote the index expressions inside float sums of a threaded pipeline; Z3 ran out of time on each sum as a whole (found by the fuzzers as cse/cse-unvalidated); proved now operand by operand

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((68,), "float32"), In1: T.Buffer((68,), "float32"), Out0: T.Buffer((68,), "float32"), Out3: T.Buffer((68,), "float32"), Out5: T.Buffer((68,), "float32")):
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        S1 = T.alloc_buffer((2,), "float32", scope="shared")
        S2 = T.alloc_buffer((2,), "float32", scope="shared")
        S4 = T.alloc_buffer((2,), "float32", scope="shared")
        for i in T.serial(3, 34, annotations={"software_pipeline_stage": [0, 2, 3, 2, 3, 3], "software_pipeline_order": [2, 3, 1, 5, 0, 4], "software_pipeline_async_stages": [0]}):
            Out0[i * 2 + tx] = In1[i * 2] * T.float32(4.0)
            S1[tx] = In0[i * 2 + tx] * T.float32(0.5)
            if i % 3 != 0:
                S2[tx] = In0[i * 2 + tx] * (T.float32(4.0) + Out0[i * 2 + tx] + S1[tx])
            Out3[i * 2 + tx] = T.float32(4.0) + Out0[i * 2 + tx] + S1[tx]
            S4[tx] = T.float32(3.0) + S1[tx]
            Out5[i * 2 + tx] = In0[i * 2 + tx] * (T.float32(1.0) + S1[tx])
