# test: run
# desc: cuda_pipeline.h's idiom: a group committed every iteration, empty once the copies end, and no wait after the loop: only an empty group is in flight when the function ends, which is no fault
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = A[0]
    for i in range(15):
        with T.attr({"async_commit_queue_scope": 0}):
            if i + 1 < 15:
                with T.attr({"async_scope": 1}):
                    B[(i + 1) % 2] = A[i + 1]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1})
        C[i] = B[i % 2]
