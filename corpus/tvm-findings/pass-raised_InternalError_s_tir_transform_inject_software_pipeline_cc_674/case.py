# test: tvm-finding
# tvm: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:674
# seed: 40
# desc: TVM 0.27.0.post1: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:674 (tirproof fuzz campaign seed 211, program 40)

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((1,), "float32"), In1: T.Buffer((6,), "float32"), Out2: T.Buffer((1,), "float32"), Out4: T.Buffer((1,), "float32")):
    for i in T.serial(1, annotations={"software_pipeline_stage": [2, 0, 2], "software_pipeline_order": [1, 0, 2], "software_pipeline_async_stages": [0, 2]}):
        S0 = T.alloc_buffer((4,), "float32", scope="local")
        S1 = T.alloc_buffer((4,), "float32", scope="local")
        S3 = T.alloc_buffer((4,), "float32", scope="local")
        S0[T.Ramp(0, 1, 4)] = In1[T.Ramp(i, 1, 4)]
        S1[T.Ramp(0, 1, 4)] = In1[T.Ramp(i, 1, 4)]
        S3[T.Ramp(0, 1, 4)] = S0[T.Ramp(0, 1, 4)] + S1[T.Ramp(0, 1, 4)]
