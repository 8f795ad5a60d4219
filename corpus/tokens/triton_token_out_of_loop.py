# test: run
# desc: Triton's pipeliner gives 0 for a wait on a token that comes out of a loop: over-synchronized. The token names the loop's first group and three groups follow it, so the exact count is 3
# run: lazy -> ok
# run: eager -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    toks = T.alloc_buffer((1,), "int64", scope="local")
    for i in range(4):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[i] = A[i]
        if i == 0:
            toks[0] = T.call_extern("int64", "async_group_token", 0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 3):
            with T.attr(0, "async_wait_tokens", toks[0]):
                C[0] = S[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            C[1] = S[1] + S[2] + S[3]
