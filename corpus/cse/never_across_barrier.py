# test: pass
# passes: cse
# desc: never across a barrier: S[7 - tx] is read before and after the other threads write it, so the loads stay; only the index 7 - tx, a function of the thread, is bound

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((16,), "int32")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        S = T.alloc_buffer((8,), "int32", scope="shared")
        S[tx] = A[tx]
        T.tvm_storage_sync("shared")
        C[tx] = S[7 - tx] * 2
        T.tvm_storage_sync("shared")
        S[tx] = A[tx] + 1
        T.tvm_storage_sync("shared")
        C[tx + 8] = S[7 - tx] * 2


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((8,), "int32"), C: T.Buffer((16,), "int32")):
#     for tx in T.thread_binding(8, thread="threadIdx.x"):
#         cse_v1: T.let[T.int32] = 7 - tx
#         S = T.alloc_buffer((8,), "int32", scope="shared")
#         S[tx] = A[tx]
#         T.tvm_storage_sync("shared")
#         C[tx] = S[cse_v1] * 2
#         T.tvm_storage_sync("shared")
#         S[tx] = A[tx] + 1
#         T.tvm_storage_sync("shared")
#         C[tx + 8] = S[cse_v1] * 2
