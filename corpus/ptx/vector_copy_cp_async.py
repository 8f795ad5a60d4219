# test: roundtrip
# desc: 16-byte async copies into shared memory are cp.async.cg, one group per iteration; the steady state waits for all but the newest group before the vector read, the epilogue for all
# ptx: .target sm_80
# ptx: cp.async.cg.shared.global
# ptx: , 16;
# ptx: cp.async.commit_group;
# ptx: cp.async.cg.shared.global
# ptx: cp.async.commit_group;
# ptx: cp.async.wait_group 1;
# ptx: ld.shared.v4.f32
# ptx: add.rn.f32
# ptx: st.global.v4.f32
# ptx: cp.async.wait_group 0;
# ptx: ret;

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in T.serial(16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1], "software_pipeline_async_stages": [0]}):
        B = T.alloc_buffer((4,), "float32", scope="shared")
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]
        C[T.Ramp(i * 4, 1, 4)] = B[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
