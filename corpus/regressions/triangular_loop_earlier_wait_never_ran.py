# test: fuzz
# oracles: verify
# seed: 5863
# desc: a wait with count `i` inside a triangular `range(i)`: the earlier iterations of `i` taken for the wait must keep the inner loop in range (at i = 0 it is empty); an instance that never ran completed the group, and a program that ends with a group in flight was proved

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((2,), "float32")):
    Out_pairs = T.decl_buffer((8,), "float32x2", data=Out.data)
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S = T.alloc_buffer((8,), "float32", scope="shared")
        S_pairs = T.decl_buffer((4,), "float32x2", scope="shared", data=S.data)
        for z in range(4):
            S[z] = T.float32(0.0)
        for i in range(2):
            for j in range(i):
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[0] = A[j]
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": i})
                Out_pairs[0] = S_pairs[(j - 2) % 3]
