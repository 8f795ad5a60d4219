# test: pass-error
# desc: fourteen nested two-stage pipelines would multiply their copies to about 127,000 statements; the outermost loop is refused with the count and the limit instead of running out of memory
# error: 10:5: error: pipelining this loop would emit 126968 statements, more than the limit of 100000 (its prologue and epilogue copy the loop body; nested pipelines multiply the copies at every level)
# error: 13:9: error: pipelining this loop would emit 126960 statements, more than the limit of 100000 (its prologue and epilogue copy the loop body; nested pipelines multiply the copies at every level)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), Out: T.Buffer((4,), "float32")):
    for i0 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B0 = T.alloc_buffer((1,), "float32", scope="shared")
        B0[0] = A[i0]
        for i1 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
            B1 = T.alloc_buffer((1,), "float32", scope="shared")
            B1[0] = A[i1]
            for i2 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                B2 = T.alloc_buffer((1,), "float32", scope="shared")
                B2[0] = A[i2]
                for i3 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                    B3 = T.alloc_buffer((1,), "float32", scope="shared")
                    B3[0] = A[i3]
                    for i4 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                        B4 = T.alloc_buffer((1,), "float32", scope="shared")
                        B4[0] = A[i4]
                        for i5 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                            B5 = T.alloc_buffer((1,), "float32", scope="shared")
                            B5[0] = A[i5]
                            for i6 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                B6 = T.alloc_buffer((1,), "float32", scope="shared")
                                B6[0] = A[i6]
                                for i7 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                    B7 = T.alloc_buffer((1,), "float32", scope="shared")
                                    B7[0] = A[i7]
                                    for i8 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                        B8 = T.alloc_buffer((1,), "float32", scope="shared")
                                        B8[0] = A[i8]
                                        for i9 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                            B9 = T.alloc_buffer((1,), "float32", scope="shared")
                                            B9[0] = A[i9]
                                            for i10 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                                B10 = T.alloc_buffer((1,), "float32", scope="shared")
                                                B10[0] = A[i10]
                                                for i11 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                                    B11 = T.alloc_buffer((1,), "float32", scope="shared")
                                                    B11[0] = A[i11]
                                                    for i12 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                                        B12 = T.alloc_buffer((1,), "float32", scope="shared")
                                                        B12[0] = A[i12]
                                                        for i13 in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
                                                            S = T.alloc_buffer((1,), "float32", scope="shared")
                                                            S[0] = A[0]
                                                            Out[0] = S[0]
