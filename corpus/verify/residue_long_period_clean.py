# test: run
# desc: a condition of period 100 (longer than any enumeration): every iteration but the 100th waits for all groups, the 100th reads the copy of the iteration before it and leaves its own in flight
# run: lazy n=100 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i % 128]
        if i % 100 != 99:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            C[i % 128] = B[i % 2]
        if i % 100 == 99:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
            T.evaluate(0)
            C[i % 128] = B[(i + 1) % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
