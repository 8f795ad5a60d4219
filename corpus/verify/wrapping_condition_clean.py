# test: run
# desc: `i + 2147483647 > 0` wraps in int32 from i = 1 on, so it holds at i = 0 only: the wait and the read under it run once, and every copy is in a slot of its own
# run: lazy n=4 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((64,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        if i + 2147483647 > 0:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[i] = B[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
