# test: run
# desc: commits at even i, waits at odd i before the read of the copy the even iteration made: a condition of period 2 on a loop of any extent
# run: lazy n=9 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    for i in range(n):
        if i % 2 == 0:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[i % 64]
        if i % 2 != 0:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[i % 64] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
