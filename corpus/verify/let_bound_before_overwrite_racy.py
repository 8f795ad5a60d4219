# test: run
# desc: twin of let_bound_before_overwrite_clean: the use reads the slot again after the next copy was issued
# run: lazy -> fault: line 17: read of B[0] (element 0) while an async write to it is pending (group 1 of queue 0, committed at line 15) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = A[0]
    for i in range(15):
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            v: T.let[T.float32] = B[0]
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[i + 1]
            C[i] = v + B[0]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
        C[15] = B[0]
