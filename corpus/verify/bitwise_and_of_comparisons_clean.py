# test: run
# desc: a count spelled with `&` of comparisons, as TVM prints it: 1 only where both hold, never here
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.Cast("int32", (i < 0) & (i < 2))}):
            C[i] = B[i % 2]
