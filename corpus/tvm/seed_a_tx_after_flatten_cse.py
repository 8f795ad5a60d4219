# test: run
# desc: seed a_tx as TVM 0.27 prints it after flatten cse, run against its input under each schedule (the file must also round-trip through the printer)
# run: lazy vs seed_a_tx_input.py -> ok
# run: eager vs seed_a_tx_input.py -> ok
# run: random:1 vs seed_a_tx_input.py -> ok

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
        A_1 = A.view(512)
        C_1 = C.view(512)
        with T.launch_thread("threadIdx.x", 32) as tx:
            B = T.alloc_shared((64,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[tx] = A_1[tx] * T.float32(2.0)
            for i in range(15):
                cse_v1: T.let[T.int32] = i + 1
                cse_v2: T.let[T.int32] = i * 32 + tx
                if cse_v1 < 16:
                    T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                    B[cse_v1 % 2 * 32 + tx] = A_1[cse_v2 + 32] * T.float32(2.0)
                if cse_v1 - 1 < 16:
                    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
                    C_1[cse_v2] = B[i % 2 * 32 + tx] + T.float32(1.0)
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
                C_1[tx + 480] = B[tx + 32] + T.float32(1.0)
