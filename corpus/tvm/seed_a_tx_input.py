# test: run
# desc: the TVM 0.27 input of seed a_tx (S-TIR), run on its own
# run: lazy -> ok

# Seed (a) under a thread binding: 32 threads, each pipelining its own column of a 16x32 array.
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
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
                B = T.sblock_alloc_buffer((1, 32), "float32", scope="shared")
                with T.sblock():
                    B[0, tx] = A[i, tx] * T.float32(2)
                with T.sblock():
                    C[i, tx] = B[0, tx] + T.float32(1)
