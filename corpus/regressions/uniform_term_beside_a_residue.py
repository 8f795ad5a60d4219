# test: fuzz
# oracles: waits-tight
# seed: 3188
# desc: reduced from `neighbour_rows_keep_the_slot_distance.py`: `B[tx + i % 4]` in `range(2)` rewrites an element only four iterations later, which a two-iteration loop never reaches; the pass waited between its two writes

# from tvm.script import tirx as T

@T.prim_func
def main(In0: T.Buffer((3,), "float32"), Out: T.Buffer((1,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(1, thread="threadIdx.x"):
            B = T.alloc_buffer((40,), "float32", scope="shared")
            for i in T.serial(2, annotations={"software_pipeline_stage": [2], "software_pipeline_order": [0], "software_pipeline_async_stages": [2]}):
                B[tx + i % 4] = In0[i]
