# test: run
# desc: a loop whose extent is read from memory (once, before the loop): its copies are counted with that unknown extent
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), K: T.Buffer((1,), "int32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(K[0] % 8):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[i] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            C[i] = S[i]
