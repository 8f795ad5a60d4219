# a copy and its wait each under a condition on data read at other elements: racy exactly when the wait is skipped in two iterations whose copies write one slot (A[i], A[i + 2] > 0.5 and A[i + 8], A[i + 9] <= 0.5), which the solver cannot confirm
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((4,), "int32"), Out: T.Buffer((16,), "float32"), n: T.int32):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for z in range(2):
        S[z] = T.float32(0.0)
    for i in range(n):
        if A[i % 16] > T.float32(0.5):
            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
            S[i % 2] = A[(i + 1) % 16]
        if A[(i + 8) % 16] > T.float32(0.5):
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            Out[i % 16] = S[i % 2]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    Out[0] = S[0]
