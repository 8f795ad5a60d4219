# test: run
# desc: RFC example 3 as printed (its async_wait_group typo read as async_wait_queue): the epilogue stores D[(i + 14) % 2] where D[i + 14] is meant
# run: lazy vs three_stage_input.py -> mismatch: D[0] differs: 4.75 (original) vs 6.25 (transformed)
# run: eager vs three_stage_input.py -> mismatch: D[0] differs: 4.75 (original) vs 6.25 (transformed)
# run: random:1 vs three_stage_input.py -> mismatch: D[0] differs: 4.75 (original) vs 6.25 (transformed)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    C = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(2):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i % 2] = A[i] + T.float32(1.0)
        if 1 <= i:
            with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
                C[(i - 1) % 2] = B[(i - 1) % 2] + T.float32(1.0)
    for i in range(14):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[(i + 2) % 2] = A[i + 2] + T.float32(1.0)
        with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 1, "async_scope": 1}):
            C[(i + 1) % 2] = B[(i + 1) % 2] + T.float32(1.0)
        with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
            D[i] = C[i % 2] + T.float32(1.0)
    for i in range(2):
        if i < 1:
            with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_inflight_count": 0, "async_scope": 1}):
                C[(i + 15) % 2] = B[(i + 15) % 2] + T.float32(1.0)
        if i < 1:
            with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 1}):
                D[(i + 14) % 2] = C[(i + 14) % 2] + T.float32(1.0)
        else:
            with T.attr({"async_wait_queue_scope": 1, "async_wait_inflight_count": 0}):
                D[(i + 14) % 2] = C[(i + 14) % 2] + T.float32(1.0)
