# test: roundtrip
# desc: under a thread binding the kernel is fixed to 32 threads; an async store of a computed value is a plain store with a note, still inside its commit group
# ptx: .reqntid 32, 1, 1
# ptx: mov.u32 %r0, %tid.x;
# ptx: // note: async store to `B` done synchronously: its value is not a plain load
# ptx: st.shared.f32
# ptx: cp.async.commit_group;
# ptx: cp.async.wait_group 1;
# ptx: cp.async.wait_group 0;

# from tvm.script import tirx as T

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
