# test: pipeline
# desc: statements that are loops: a 4-element copy per iteration

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 2], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        for j in range(4):
            B[j] = A[i * 4 + j]
        for j in range(4):
            C[i * 4 + j] = B[3 - j]
