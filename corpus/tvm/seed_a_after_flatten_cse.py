# test: run
# desc: seed a as TVM 0.27 prints it after flatten cse, run against its input under each schedule (the file must also round-trip through the printer)
# run: lazy vs seed_a_input.py -> ok
# run: eager vs seed_a_input.py -> ok
# run: random:1 vs seed_a_input.py -> ok

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        A_1 = T.decl_buffer((16,), data=A.data)
        C_1 = T.decl_buffer((16,), data=C.data)
        B = T.alloc_shared((2,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[0] = A_1[0] + T.float32(1.0)
        for i in range(15):
            cse_v1: T.let[T.int32] = i + 1
            if cse_v1 < 16:
                T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                B[cse_v1 % 2] = A_1[cse_v1] + T.float32(1.0)
            if cse_v1 - 1 < 16:
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
                C_1[i] = B[i % 2] + T.float32(1.0)
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            C_1[15] = B[1] + T.float32(1.0)
