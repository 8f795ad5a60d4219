# test: run
# desc: a second copy into the same slot before the first one completed
# run: lazy -> fault: line 12: write to B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 11) at i = 1

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[0] = A[i]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
        C[0] = B[0]
