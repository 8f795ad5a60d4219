# test: run
# desc: a loop of symbolic extent whose wait count grows (`T.min(i, 1) * 100`): only the first iteration's wait completes the one copy, made at i = 0, that every iteration reads
# run: lazy n=9 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            if i == 0:
                B[0] = A[0]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.min(i, 1) * 100})
        T.evaluate(0)
        C[i % 64] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
