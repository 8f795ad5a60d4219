# test: print
# desc: dictionary attributes (chains merge into one dict), bare and with-forms, the three-argument form

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        S[0] = A[0]
    with T.attr(0, "pragma_hint", 7):
        S[1] = A[1]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    B[0] = S[0] + S[1]
