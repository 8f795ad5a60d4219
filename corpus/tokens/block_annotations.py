# test: run
# desc: tokens in S-TIR block annotations: the copy block commits, the token of its group is kept in a scalar, and the use block waits on it; the same meaning as the attribute chain
# run: lazy -> ok
# run: eager -> ok

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    with T.sblock("copy"):
        T.reads(A[0])
        T.writes(S[0])
        T.sblock_attr({"async_commit_queue_scope": 0, "async_scope": 1})
        S[0] = A[0]
    tok: T.int64 = T.call_extern("int64", "async_group_token", 0)
    with T.sblock("use"):
        T.reads(S[0])
        T.writes(C[0])
        T.sblock_attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(tok)})
        C[0] = S[0]
