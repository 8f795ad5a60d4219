# test: pass
# passes: lower-opaque-block
# desc: nested blocks: predicates, allocations inside the predicate, a binding that loads (bound once by a let), annotations (the in-flight count moved after its wait, other keys dropped)

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), Idx: T.Buffer((4,), "int32"), C: T.Buffer((16,), "float32")):
    with T.sblock("root"):
        T.reads()
        T.writes()
        Sh = T.sblock_alloc_buffer((16,), "float32", scope="shared")
        for i in range(16):
            with T.sblock("load"):
                vi = T.axis.spatial(16, i)
                T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
                Sh[vi] = A[vi]
            with T.sblock("outer"):
                vi = T.axis.spatial(16, i)
                T.where(i < 16)
                T.attr({"async_wait_inflight_count": 0, "async_wait_queue_scope": 0, "meta": "dropped"})
                B = T.sblock_alloc_buffer((2,), "float32", scope="local")
                for j in range(2):
                    with T.sblock("inner"):
                        vj = T.axis.spatial(2, j)
                        vk = T.axis.spatial(4, Idx[j])
                        B[vj] = Sh[vi] + T.Cast("float32", vk)
                C[vi] = B[0] + B[1]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((16,), "float32"), Idx: T.Buffer((4,), "int32"), C: T.Buffer((16,), "float32")):
#     Sh = T.alloc_buffer((16,), "float32", scope="shared")
#     for i in range(16):
#         with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
#             Sh[i] = A[i]
#         if i < 16:
#             B = T.alloc_buffer((2,), "float32", scope="local")
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#             for j in range(2):
#                 vk: T.let[T.int32] = Idx[j]
#                 B[j] = Sh[i] + T.Cast("float32", vk)
#             C[i] = B[0] + B[1]
