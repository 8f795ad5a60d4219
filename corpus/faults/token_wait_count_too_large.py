# test: run
# desc: a wait with a count and tokens (MLIR's numGroups, Triton's num): the count runs, and a count that leaves a named group in flight is a fault even when nothing reads the copy yet
# run: lazy -> fault: line 15: async_wait_inflight_count 3 leaves group 0 of queue 0 (committed at line 11) in flight, which its tokens name (3 committed; at most 2 completes it)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    for k in range(3):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[k] = A[k]
    first: T.int64 = T.call_extern("int64", "async_group_token", 0) - 2
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 3):
            with T.attr(0, "async_wait_tokens", first):
                C[0] = S[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            C[1] = S[1] + S[2]
