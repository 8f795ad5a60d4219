# test: run
# desc: RFC example 2 as printed: the waits are right (1 in the body, 0 in the epilogue) but the data flow has the same two slips as example 1
# run: lazy vs async_input.py -> mismatch: C[0] differs: 3.75 (original) vs 2.75 (transformed)
# run: eager vs async_input.py -> mismatch: C[0] differs: 3.75 (original) vs 2.75 (transformed)
# run: random:1 vs async_input.py -> mismatch: C[0] differs: 3.75 (original) vs 2.75 (transformed)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = A[0]
    for i in range(15):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[(i + 1) % 2] = A[i] + T.float32(1.0)
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1}):
            C[i] = B[i % 2] + T.float32(1.0)
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
        C[15] = B[1] + T.float32(1.0)
