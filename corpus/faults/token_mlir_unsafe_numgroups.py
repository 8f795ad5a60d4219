# test: run
# desc: MLIR's nvgpu dialect keeps an unsafe numGroups next to the group token it names (its verifier accepts it and the lowering emits the count): with four groups committed after the one the read needs, numGroups 5 leaves it in flight, and the claim its token makes is a fault before the read (4 is the exact count)
# run: lazy -> fault: line 18: async_wait_inflight_count 5 leaves group 0 of queue 0 (committed at line 10) in flight, which its tokens name (made at line 13) (5 committed; at most 4 completes it)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    group: T.int64 = T.call_extern("int64", "async_group_token", 0)
    for k in range(4):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[k + 1] = A[k + 1]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 5):
            with T.attr(0, "async_wait_tokens", group):
                C[0] = S[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
