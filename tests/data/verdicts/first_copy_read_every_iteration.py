# Every iteration copies one element and reads the first one copied: a wait that leaves 2 in
# flight completes the first copy from i = 2 on only, so the earlier iterations need 0.

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2})
        B[i] = S[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
