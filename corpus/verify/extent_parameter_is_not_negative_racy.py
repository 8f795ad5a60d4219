# test: run
# desc: twin of extent_parameter_is_not_negative_clean: for 0 <= n < 3 the count is 1 and the read sees its copy pending
# run: lazy n=1 -> fault: line 13: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 10)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((n,), "float32"), D: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = D[0]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(n < 3, 1, 0)}):
        C[0] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
