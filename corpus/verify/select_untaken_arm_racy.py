# test: run
# desc: twin of if_then_else_untaken_arm_clean: `T.Select` evaluates both arms, so the pending slot is read
# run: lazy -> fault: line 16: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 13) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    B[0] = T.float32(0.0)
    B[1] = T.float32(0.0)
    for i in range(16):
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i % 2] = A[i]
        C[i] = T.Select(i < 0, B[i % 2], A[i])
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
