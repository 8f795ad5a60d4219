# test: pipeline
# desc: an inner pipeline emitted as a bare sequence (no allocation around it): its copies keep the outer copy's provenance, so the verifier's data-flow check sees the outer order

# from tvm.script import tirx as T

@T.prim_func
def main(B: T.Buffer((8,), "float32"), Out0: T.Buffer((8,), "float32")):
    B_shared = T.alloc_buffer((2,), "float32", scope="shared")
    for k0 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1]}):
        for j in range(2):
            B_shared[j] = B[k0 * 2 + j]
        for k1 in T.serial(2, annotations={"software_pipeline_stage": [1], "software_pipeline_order": [0]}):
            Out0[k0 * 2 + k1] = B_shared[k1] * T.float32(3.0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(B: T.Buffer((8,), "float32"), Out0: T.Buffer((8,), "float32")):
#     B_shared = T.alloc_buffer((2, 2), "float32", scope="shared")
#     for j in range(2):
#         B_shared[0, j] = B[j]
#     for k0 in range(3):
#         for j in range(2):
#             B_shared[(k0 + 1) % 2, j] = B[(k0 + 1) * 2 + j]
#         for k1 in range(1):
#             Out0[k0 * 2 + k1] = B_shared[k0 % 2, k1] * T.float32(3.0)
#         Out0[k0 * 2 + 1] = B_shared[k0 % 2, 1] * T.float32(3.0)
#     for k1 in range(1):
#         Out0[6 + k1] = B_shared[1, k1] * T.float32(3.0)
#     Out0[7] = B_shared[1, 1] * T.float32(3.0)
