# test: error
# desc: stage and order lists of different lengths
# error: 10:5: error: annotations `software_pipeline_stage` and `software_pipeline_order` have different lengths (3 and 2)

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1, 1], "software_pipeline_order": [0, 1]}):
        A[i] = A[i]
