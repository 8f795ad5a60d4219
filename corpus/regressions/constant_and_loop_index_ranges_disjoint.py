# test: fuzz
# oracles: waits-tight
# seed: 1692
# desc: reduced from `scaled_residues_never_meet.py`: `B[1]` and `B[i]` never meet while `i` stays in `range(1)`; the pass waited anyway

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), Out: T.Buffer((1,), "float32")):
    B = T.alloc_buffer((8,), "float32", scope="shared")
    for j in range(1):
        B[j] = T.float32(0.0)
    for i in T.serial(1, annotations={"software_pipeline_stage": [1, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [1]}):
        B[1] = T.float32(1.5)
        Out[i] = B[i]
