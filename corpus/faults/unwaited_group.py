# test: run
# desc: a group committed and never waited before the function ends
# run: lazy -> fault: line 14: async group never waited: group 1 of queue 0 (committed at line 14) is still in flight when the function ends, holding its async store issued at line 15

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = A[0]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
        C[0] = B[0]
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[1] = A[1]
