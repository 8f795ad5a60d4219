# test: error
# desc: stage and order lists of different lengths
# error: 10:5: error: `software_pipeline_stage` has 3 entries but `software_pipeline_order` has 2; both need one entry per statement

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1, 1], "software_pipeline_order": [0, 1]}):
        A[i] = A[i]
