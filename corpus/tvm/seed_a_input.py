# test: run
# desc: the TVM 0.27 input of seed a (S-TIR), run on its own
# run: lazy -> ok

# Seed (a): 2 statements, stages [0,1], orders [0,1], async_stages [0], extent 16, B: [1]
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(
        0,
        16,
        annotations={
            "software_pipeline_stage": [0, 1],
            "software_pipeline_order": [0, 1],
            "software_pipeline_async_stages": [0],
        },
    ):
        with T.sblock("compute"):
            T.reads(A[i])
            T.writes(C[i])
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            with T.sblock():
                T.reads(A[i])
                T.writes(B[0])
                B[0] = A[i] + T.float32(1)
            with T.sblock():
                T.reads(B[0])
                T.writes(C[i])
                C[i] = B[0] + T.float32(1)
