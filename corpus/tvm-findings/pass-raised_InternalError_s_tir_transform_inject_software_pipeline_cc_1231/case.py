# test: tvm-finding
# tvm: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:1231
# seed: 1
# desc: TVM 0.27.0.post1: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:1231 (tirproof fuzz campaign seed 201, program 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32"), Out1: T.Buffer((1,), "float32")):
    for k0 in T.serial(1, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0], "software_pipeline_async_stages": []}):
        for k1 in T.serial(1, annotations={"software_pipeline_stage": [0, 0], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": []}):
            Out0[k0] = Out0[k0]
            Out1[k0] = Out1[k0]
