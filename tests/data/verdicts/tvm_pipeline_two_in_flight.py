# seed a as TVM 0.27 prints it after pipeline, with the wait in the loop at 2 in flight: the read at i = 0 sees the first copy pending (and at i = 1 the copy overwrites a slot in flight)
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        with T.sblock("root"):
            T.reads()
            T.writes()
            with T.sblock(""):
                T.reads(A[0:16])
                T.writes(C[0:16])
                B = T.sblock_alloc_buffer((2, 1), scope="shared")
                with T.sblock(""):
                    T.reads(A[0])
                    T.writes(B[T.FloorMod(0, 2), 0])
                    T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                    B[T.FloorMod(0, 2), 0] = A[0] + T.float32(1.0)
                with T.sblock(""):
                    T.reads(A[1:16], B[0:2, 0])
                    T.writes(B[0:2, 0], C[0:15])
                    for i in range(15):
                        with T.sblock(""):
                            T.where(i + 1 < 16)
                            T.reads(A[i + 1])
                            T.writes(B[(i + 1) % 2, 0])
                            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                            B[(i + 1) % 2, 0] = A[i + 1] + T.float32(1.0)
                        with T.sblock(""):
                            T.where(i + 1 - 1 < 16)
                            T.reads(B[(i - 1 + 1) % 2, 0])
                            T.writes(C[i - 1 + 1])
                            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2})
                            C[i - 1 + 1] = B[(i - 1 + 1) % 2, 0] + T.float32(1.0)
                with T.sblock(""):
                    T.reads(B[T.FloorMod(15, 2), 0])
                    T.writes(C[15])
                    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
                    C[15] = B[T.FloorMod(15, 2), 0] + T.float32(1.0)
