# test: tvm-finding
# tvm: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:842
# seed: 36
# desc: TVM 0.27.0.post1: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:842 (tirproof fuzz campaign seed 211, program 36)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((32,), "float32"), Out: T.Buffer((1,), "float32"), n: T.int32):
    for i in T.serial(n, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [0, 2, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((2,), "float32", scope="shared")
        for j in range(1):
            B[0] = T.float32(0.0)
        B[0] = In0[i]
        B[0] = In0[i]
