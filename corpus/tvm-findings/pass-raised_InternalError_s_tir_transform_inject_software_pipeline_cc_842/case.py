# test: tvm-finding
# tvm: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:842
# seed: 40
# desc: TVM 0.27.0.post1: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:842 (tirproof fuzz campaign seed 201, program 40)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((5,), "float32"), In1: T.Buffer((1,), "float32"), Out1: T.Buffer((5,), "float32"), Out2: T.Buffer((1,), "float32"), Out4: T.Buffer((1,), "float32"), Out5: T.Buffer((1,), "float32")):
    S0 = T.alloc_buffer((1,), "float32", scope="local")
    S3 = T.alloc_buffer((1,), "float32", scope="local")
    for i in T.serial(4, annotations={"software_pipeline_stage": [0, 2, 2], "software_pipeline_order": [1, 2, 0], "software_pipeline_async_stages": [2]}):
        S0[0] = In0[i]
        Out1[i] = In0[i]
        S3[0] = In0[i]
