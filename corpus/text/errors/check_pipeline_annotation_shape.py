# test: error
# desc: pipeline annotations must be integer lists
# error: 10:5: error: annotation `software_pipeline_stage` must be a list of integers, found a string

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": "0, 1", "software_pipeline_order": [0, 1]}):
        A[i] = A[i]
