# test: run
# desc: twin of wrap_count_select_racy: `i * 134217728` stays below 2^31 for i < 16, so the count is always 0
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(i * 134217728 < 0, 1, 0)}):
            C[i] = B[i % 2]
