# test: fuzz
# oracles: waits-tight
# seed: 1692
# desc: found by the fuzzers as waits-tight/wait-over-synchronized (campaign seed 139, program 1692): `B[i % 4 * 2]` and `B[i % 4 * 2 + 1]` never share an element, and `B[(i + 1) % 4 * 2]` meets `B[i % 4 * 2]` only one iteration apart, which a one-iteration loop never has; the pass waited for both

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
    B = T.alloc_buffer((8,), "float32", scope="shared")
    for j in range(8):
        B[0 * 8 + j] = T.float32(0.0)
    for i in T.serial(1, annotations={"software_pipeline_stage": [0, 1, 1], "software_pipeline_order": [2, 0, 1], "software_pipeline_async_stages": [0, 1]}):
        B[0 * 8 + (i + 0) % 4 * 2 + 0] = In0[i * 1 + 0] * T.float32(0.5)
        B[0 * 8 + (i + 0) % 4 * 2 + 1] = In0[i * 1 + 0] * T.float32(1.5)
        Out[i * 1 + 0] = B[0 * 8 + (i + 1) % 4 * 2] + T.float32(1.0) + B[0 * 8 + (i + 1) % 4 * 2 + 1]
