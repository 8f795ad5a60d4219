# test: tvm-finding
# tvm: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:674
# desc: TVM 0.27.0.post1: pass-raised:InternalError@s_tir/transform/inject_software_pipeline.cc:674 (tirproof fuzz campaign seed 201, program 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), Out3: T.Buffer((1,), "float32"), n: T.int32):
    A_shared = T.alloc_buffer((8,), "float32", scope="shared")
    B_shared = T.alloc_buffer((8,), "float32", scope="shared")
    for k0 in T.serial(n, annotations={"software_pipeline_stage": [0, 0, 1], "software_pipeline_order": [1, 2, 0]}):
        for j in range(1):
            A_shared[j] = A[k0]
        for j in range(1):
            B_shared[j] = B[k0]
        for k1 in T.serial(1, annotations={"software_pipeline_stage": [0, 1, 2], "software_pipeline_order": [1, 2, 0], "software_pipeline_async_stages": [0, 1]}):
            S0 = T.alloc_buffer((1,), "float32", scope="local")
            S1 = T.alloc_buffer((1,), "float32", scope="local")
            S2 = T.alloc_buffer((1,), "float32", scope="local")
            S0[0] = A_shared[k1]
            S1[0] = B_shared[k1]
            S2[0] = S0[0] + S1[0]
