# test: run
# desc: seed c as TVM 0.27 prints it after flatten cse, run against its input under each schedule (the file must also round-trip through the printer)
# run: lazy vs seed_c_input.py -> mismatch: the transformed program faults: line 37: read of A_shared[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 22) at i = 0
# run: eager vs seed_c_input.py -> ok
# run: random:1 vs seed_c_input.py -> ok

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        A_1 = T.decl_buffer((16,), data=A.data)
        B_1 = T.decl_buffer((16,), data=B.data)
        C_1 = T.decl_buffer((16,), data=C.data)
        A_shared = T.alloc_shared((4,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
        B_shared = T.alloc_shared((4,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
        for i in T.unroll(3):
            if i < 16:
                T.attr({"async_commit_queue_scope": 0})
                cse_v1: T.let[T.int32] = i % 4
                with T.attr({"async_scope": 1}):
                    A_shared[cse_v1] = A_1[i]
                with T.attr({"async_scope": 1}):
                    B_shared[cse_v1] = B_1[i]
        for i in range(13):
            cse_v2: T.let[T.int32] = i + 3
            cse_v4: T.let[T.int32] = cse_v2 % 4
            if cse_v2 < 16:
                T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                A_shared[cse_v4] = A_1[cse_v2]
            if cse_v2 - 3 < 16:
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 5})
                cse_v3: T.let[T.int32] = i % 4
                C_1[i] = A_shared[cse_v3] + B_shared[cse_v3]
            if cse_v2 < 16:
                T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                B_shared[cse_v4] = B_1[cse_v2]
        for i in T.unroll(3):
            if i + 16 - 3 < 16:
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2 - i})
                cse_v5: T.let[T.int32] = (i + 1) % 4
                C_1[i + 13] = A_shared[cse_v5] + B_shared[cse_v5]
