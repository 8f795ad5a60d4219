# test: run
# desc: the TVM 0.27 input of seed c (S-TIR), run on its own
# run: lazy -> ok

# Seed (c): two producers + one consumer, stages [0,0,3], orders [0,2,1] (consumer
# interleaved between the producers), async_stages [0], extent 16
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def main(
    A: T.Buffer((16,), "float32"),
    B: T.Buffer((16,), "float32"),
    C: T.Buffer((16,), "float32"),
):
    for i in T.serial(
        0,
        16,
        annotations={
            "software_pipeline_stage": [0, 0, 3],
            "software_pipeline_order": [0, 2, 1],
            "software_pipeline_async_stages": [0],
        },
    ):
        with T.sblock("compute"):
            T.reads(A[i], B[i])
            T.writes(C[i])
            A_shared = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            B_shared = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            with T.sblock():
                T.reads(A[i])
                T.writes(A_shared[0])
                A_shared[0] = A[i]
            with T.sblock():
                T.reads(B[i])
                T.writes(B_shared[0])
                B_shared[0] = B[i]
            with T.sblock():
                T.reads(A_shared[0], B_shared[0])
                T.writes(C[i])
                C[i] = A_shared[0] + B_shared[0]
