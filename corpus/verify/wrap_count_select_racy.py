# test: run
# desc: the count is 1 where `i * 268435456` wraps negative (i >= 8), and the read then sees its own copy pending; over unbounded integers the product never is negative
# run: lazy -> fault: line 14: read of B[0] (element 0) while an async write to it is pending (group 8 of queue 0, committed at line 11) at i = 8

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(16):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(i * 268435456 < 0, 1, 0)}):
            C[i] = B[i % 2]
