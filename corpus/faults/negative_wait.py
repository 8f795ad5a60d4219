# test: run
# desc: an in-flight count that is negative when executed (TVM prints such counts in epilogues, e.g. 0 - i)
# run: lazy -> fault: line 14: async_wait_inflight_count is -1 for queue 0; it must be at least 0 at i = 1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(2):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
    for i in range(2):
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0 - i}):
            C[i] = B[i]
