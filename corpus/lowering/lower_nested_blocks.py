# test: pass
# passes: lower-opaque-block
# desc: nested blocks: predicates, allocations inside the predicate, a binding that loads (bound once by a let), annotations (the in-flight count moved after its wait, other keys dropped)

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), Idx: T.Buffer((4,), "int32"), C: T.Buffer((16,), "float32")):
    with T.sblock("root"):
        T.reads()
        T.writes()
        for i in range(16):
            with T.sblock("outer"):
                vi = T.axis.spatial(16, i)
                T.where(i % 3 != 1)
                T.attr({"async_wait_inflight_count": 0, "async_wait_queue_scope": 0, "meta": "dropped"})
                B = T.sblock_alloc_buffer((2,), "float32", scope="local")
                for j in range(2):
                    with T.sblock("inner"):
                        vj = T.axis.spatial(2, j)
                        vk = T.axis.spatial(4, Idx[j])
                        B[vj] = A[vi] + T.Cast("float32", vk)
                C[vi] = B[0] + B[1]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((16,), "float32"), Idx: T.Buffer((4,), "int32"), C: T.Buffer((16,), "float32")):
#     for i in range(16):
#         if i % 3 != 1:
#             B = T.alloc_buffer((2,), "float32", scope="local")
#             T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
#             for j in range(2):
#                 vk: T.let[T.int32] = Idx[j]
#                 B[j] = A[i] + T.Cast("float32", vk)
#             C[i] = B[0] + B[1]
