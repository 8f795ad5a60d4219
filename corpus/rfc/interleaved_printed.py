# test: run
# desc: RFC interleaved example as printed (prologue and body; the RFC elides the epilogue, completed here with waits of 0): the body's count 5 is right
# run: lazy vs interleaved_input.py -> mismatch: the transformed program faults: line 23: read of A_shared[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 14) at i = 0
# run: eager vs interleaved_input.py -> ok
# run: random:1 vs interleaved_input.py -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    A_shared = T.alloc_buffer((4,), "float32", scope="shared")
    B_shared = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(3):
        with T.attr({"async_commit_queue_scope": 0}):
            with T.attr({"async_scope": 1}):
                A_shared[i] = A[i]
            with T.attr({"async_scope": 1}):
                B_shared[i] = B[i]
    for i in range(13):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            A_shared[(i + 3) % 4] = A[i + 3]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 5}):
            C[i] = A_shared[i % 4] + B_shared[i % 4]
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B_shared[(i + 3) % 4] = B[i + 3]
    for i in range(3):
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            C[i + 13] = A_shared[(i + 13) % 4] + B_shared[(i + 13) % 4]
