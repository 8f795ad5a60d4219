# test: tvm-finding
# tvm: pass-raised:ValueError@s_tir/transform/inject_software_pipeline.cc:1195
# desc: TVM 0.27.0.post1: pass-raised:ValueError@s_tir/transform/inject_software_pipeline.cc:1195 (tirproof fuzz campaign seed 211, program 0)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((1,), "float32"), Out0: T.Buffer((1,), "float32")):
    for tx in T.thread_binding(1, thread="threadIdx.x"):
        for i in T.serial(1, annotations={"software_pipeline_stage": [0], "software_pipeline_order": [0], "software_pipeline_async_stages": []}):
            Out0[i] = In1[i]
