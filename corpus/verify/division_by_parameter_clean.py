# test: run
# desc: indices divide by the parameter d, which may be zero (a trap, where nothing runs after): for every other d, every read comes after the wait that completes its copy
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), d: T.int32):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[i] = A[i]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.max(T.min(i // d, 0), 0)})
        B[i] = S[i % d % 8]
