# test: run
# desc: seed b as TVM 0.27 prints it after flatten cse, run against its input under each schedule (the file must also round-trip through the printer)
# run: lazy vs seed_b_input.py -> ok
# run: eager vs seed_b_input.py -> ok
# run: random:1 vs seed_b_input.py -> ok

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
        A_1 = T.decl_buffer((16,), data=A.data)
        D_1 = T.decl_buffer((16,), data=D.data)
        B = T.alloc_shared((2,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
        C = T.alloc_shared((2,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64})
        for i in T.unroll(2):
            if i < 16:
                T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                B[i] = A_1[i] * T.float32(2.0)
            if i == 1 and i - 1 < 16:
                T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1})
                cse_v4: T.let[T.int32] = (i + 1) % 2
                C[cse_v4] = B[cse_v4] + T.float32(2.0)
        for i in range(14):
            cse_v1: T.let[T.int32] = i + 2
            cse_v2: T.let[T.int32] = i % 2
            if cse_v1 < 16:
                T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                B[cse_v2] = A_1[cse_v1] * T.float32(2.0)
            if cse_v1 - 1 < 16:
                T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1})
                cse_v5: T.let[T.int32] = (i + 1) % 2
                C[cse_v5] = B[cse_v5] + T.float32(2.0)
            if cse_v1 - 2 < 16:
                T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1})
                D_1[i] = C[cse_v2] + T.float32(1.0)
        for i in T.unroll(2):
            cse_v3: T.let[T.int32] = i + 16
            cse_v6: T.let[T.int32] = cse_v3 - 1
            if cse_v6 < 16:
                T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0 - i, "async_scope": 1})
                cse_v7: T.let[T.int32] = (i + 1) % 2
                C[cse_v7] = B[cse_v7] + T.float32(2.0)
            if cse_v3 - 2 < 16:
                T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": T.if_then_else(cse_v6 < 16, 1, 0)})
                D_1[i + 14] = C[i] + T.float32(1.0)
