# test: run
# desc: the TVM 0.27 input of seed b (S-TIR), run on its own
# run: lazy -> ok

# Seed (b): 3 statements, stages [0,1,2], orders [0,1,2], async_stages [0,1], extent 16
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    for i in T.serial(
        0,
        16,
        annotations={
            "software_pipeline_stage": [0, 1, 2],
            "software_pipeline_order": [0, 1, 2],
            "software_pipeline_async_stages": [0, 1],
        },
    ):
        with T.sblock("compute"):
            T.reads(A[i])
            T.writes(D[i])
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            C = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            with T.sblock():
                T.reads(A[i])
                T.writes(B[0])
                B[0] = A[i] * T.float32(2)
            with T.sblock():
                T.reads(B[0])
                T.writes(C[0])
                C[0] = B[0] + T.float32(2)
            with T.sblock():
                T.reads(C[0])
                T.writes(D[i])
                D[i] = C[0] + T.float32(1)
