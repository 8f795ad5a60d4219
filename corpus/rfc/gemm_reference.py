# test: run
# desc: the GEMM the RFC's nested-pipeline example computes: 128 tiles of two elements, C[0] accumulates A * B (the reference for the printed pipeline)
# run: lazy A=ones B=ones -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), C: T.Buffer((1,), "float32")):
    C[0] = T.float32(0.0)
    for k0 in range(128):
        for k1 in range(2):
            C[0] = C[0] + A[k0 * 2 + k1] * B[k0 * 2 + k1]
