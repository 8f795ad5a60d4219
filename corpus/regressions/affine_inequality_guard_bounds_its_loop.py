# test: fuzz
# oracles: waits-tight
# seed: 328
# desc: an access under `i + 1 != 1` (affine in i, not i itself) still bounds its loop: a counterexample at i = 1073741823, where `(i + 1) * 4` wraps back into bounds, needs iterations whose accesses were out of bounds long before

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((32,), "float32"), Out3: T.Buffer((128,), "float32"), n: T.int32):
    for tx in T.thread_binding(1, thread="threadIdx.x"):
        for i in T.serial(n, annotations={"software_pipeline_stage": [2, 1], "software_pipeline_order": [1, 0], "software_pipeline_async_stages": [1]}):
            S1 = T.alloc_buffer((4,), "float32", scope="shared")
            S1[tx] = T.float32(3.5)
            if i != 1:
                Out3[i * 4] = In1[i]
