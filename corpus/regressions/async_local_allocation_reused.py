# test: fuzz
# oracles: agreement
# desc: found by the fuzzers as agreement/disagreement:verifier-refuted-a-correct-program (campaign seed 0, program 184): a local buffer allocated inside an async scope in a loop is one storage to the verifier; the interpreter gave each execution fresh storage, so a loosened wait went unnoticed

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), B: T.Buffer((3,), "float32"), Out1: T.Buffer((1,), "float32"), Out4: T.Buffer((1,), "float32"), Out5: T.Buffer((1,), "float32")):
    B_shared = T.alloc_buffer((1,), "float32", scope="shared")
    for k0 in T.serial(3, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1]}):
        for j in range(1):
            B_shared[j] = B[k0]
        for k1 in T.serial(1, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0], "software_pipeline_async_stages": [0]}):
            S2 = T.alloc_buffer((1,), "float32", scope="local")
            S2[0] = B_shared[k1]
