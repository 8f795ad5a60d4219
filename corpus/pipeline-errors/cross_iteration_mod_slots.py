# test: pass-error
# desc: the consumer reads the slot the next iteration's producer overwrites (B[(i + 1) % 2]): a dependence at every distance that stages [0, 1] cannot order
# error: 11:5: error: statement 0 overwrites `B` 1 iteration(s) after statement 1 accesses the same element, but stages [0, 1] and orders [0, 1] run that write first

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    B[1] = T.float32(0.0)
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B[i % 2] = A[i]
        C[i] = B[(i + 1) % 2] + T.float32(1.0)
