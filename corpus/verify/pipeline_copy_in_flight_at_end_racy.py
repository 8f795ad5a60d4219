# test: run
# desc: the idiom with one copy more than the loop reads: the last group holds a copy when the function ends
# run: lazy -> fault: line 13: async group never waited: group 15 of queue 0 (committed at line 13) is still in flight when the function ends, holding its async store issued at line 16

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = A[0]
    for i in range(15):
        with T.attr({"async_commit_queue_scope": 0}):
            if i + 1 < 16:
                with T.attr({"async_scope": 1}):
                    B[(i + 1) % 2] = A[i + 1]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
        C[i] = B[i % 2]
