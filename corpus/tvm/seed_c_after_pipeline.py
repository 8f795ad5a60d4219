# test: run
# desc: seed c as TVM 0.27 prints it after pipeline, run against its input under each schedule (the file must also round-trip through the printer)
# run: lazy vs seed_c_input.py -> mismatch: the transformed program faults: line 51: read of A_shared[0, 0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 27) at i = 0
# run: eager vs seed_c_input.py -> ok
# run: random:1 vs seed_c_input.py -> ok

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        with T.sblock("root"):
            T.reads()
            T.writes()
            with T.sblock(""):
                T.reads(A[0:16], B[0:16])
                T.writes(C[0:16])
                A_shared = T.sblock_alloc_buffer((4, 1), scope="shared")
                B_shared = T.sblock_alloc_buffer((4, 1), scope="shared")
                with T.sblock(""):
                    T.reads(A[0:3], B[0:3])
                    T.writes(A_shared[0:3, 0], B_shared[0:3, 0])
                    for i in T.unroll(3):
                        with T.sblock(""):
                            T.where(i < 16)
                            T.reads(A[i], B[i])
                            T.writes(A_shared[i % 4, 0], B_shared[i % 4, 0])
                            T.attr({"async_commit_queue_scope": 0})
                            with T.attr({"async_scope": 1}):
                                A_shared[i % 4, 0] = A[i]
                            with T.attr({"async_scope": 1}):
                                B_shared[i % 4, 0] = B[i]
                with T.sblock(""):
                    T.reads(A[3:16], A_shared[0:4, 0], B_shared[0:4, 0], B[3:16])
                    T.writes(A_shared[0:4, 0], C[0:13], B_shared[0:4, 0])
                    for i in range(13):
                        with T.sblock(""):
                            T.where(i + 3 < 16)
                            T.reads(A[i + 3])
                            T.writes(A_shared[(i + 3) % 4, 0])
                            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                            A_shared[(i + 3) % 4, 0] = A[i + 3]
                        with T.sblock(""):
                            T.where(i + 3 - 3 < 16)
                            T.reads(A_shared[0:4, 0], B_shared[0:4, 0])
                            T.writes(C[i - 3 + 3])
                            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 5})
                            C[i - 3 + 3] = A_shared[(i - 3 + 3) % 4, 0] + B_shared[(i - 3 + 3) % 4, 0]
                        with T.sblock(""):
                            T.where(i + 3 < 16)
                            T.reads(B[i + 3])
                            T.writes(B_shared[(i + 3) % 4, 0])
                            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                            B_shared[(i + 3) % 4, 0] = B[i + 3]
                with T.sblock(""):
                    T.reads(A_shared[0:4, 0], B_shared[0:4, 0])
                    T.writes(C[13:16])
                    for i in T.unroll(3):
                        with T.sblock(""):
                            T.where(i + 16 - 3 < 16)
                            T.reads(A_shared[0:4, 0], B_shared[0:4, 0])
                            T.writes(C[i - 3 + 16])
                            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2 - i})
                            C[i - 3 + 16] = A_shared[(i - 3 + 16) % 4, 0] + B_shared[(i - 3 + 16) % 4, 0]
