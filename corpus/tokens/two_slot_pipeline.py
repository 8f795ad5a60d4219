# test: run
# desc: a two-slot copy pipeline whose waits name tokens kept in local memory from one iteration to the next; correct under every schedule
# run: lazy -> ok
# run: eager -> ok
# run: random:7 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    toks = T.alloc_buffer((2,), "int64", scope="local")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    toks[0] = T.call_extern("int64", "async_group_token", 0)
    for i in range(7):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[(i + 1) % 2] = A[i + 1]
        toks[(i + 1) % 2] = T.call_extern("int64", "async_group_token", 0)
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_tokens", T.tvm_tuple(toks[i % 2])):
                C[i] = S[i % 2]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            with T.attr(0, "async_wait_tokens", T.tvm_tuple(toks[1])):
                C[7] = S[1]
