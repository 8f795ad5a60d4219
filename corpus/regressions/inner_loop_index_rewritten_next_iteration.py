# test: fuzz
# oracles: equivalence, waits-tight
# desc: an async writer of `B[i + j]` over an inner loop `j` rewrites in iteration i + 1 the element it wrote in iteration i; the dependence test cancelled `j` against itself as if both iterations gave it one value, and issued the rewrite while the first write was pending

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((20,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((20,), "float32", scope="shared")
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        for j in range(2):
            B[i + j] = A[i + j]
        C[i] = A[i]
