# test: run
# desc: a wait count that is not a constant becomes a chain of predicated waits, one per count from 0 to its bound, so exactly the largest one not above the count runs
# run: lazy n=1 -> ok
# ptx: setp.le.s32
# ptx: cp.async.wait_group 0;
# ptx: setp.ge.s32
# ptx: cp.async.wait_group 1;
# ptx: cp.async.wait_group 0;

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((n,), "float32"), D: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = D[0]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(n < 0, 1, 0)}):
        C[0] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
