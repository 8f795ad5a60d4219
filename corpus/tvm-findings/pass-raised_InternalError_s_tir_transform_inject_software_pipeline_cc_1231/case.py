# test: tvm-finding
# tvm: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:1231
# seed: 1
# desc: TVM 0.27.0.post1: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:1231 (tirproof fuzz campaign seed 211, program 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out1: T.Buffer((1,), "float32"), Out2: T.Buffer((1,), "float32")):
    for k0 in T.serial(1, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": []}):
        B_shared = T.alloc_buffer((3,), "float32", scope="shared")
        for j in range(1):
            B_shared[j] = B[k0]
        for k1 in T.serial(1, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [1, 0]}):
            Out1[0] = Out1[0]
            Out2[0] = Out2[0]
