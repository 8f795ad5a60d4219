# test: run
# desc: an asynchronous store outside every commit scope, and no commit after it: it is still in flight when the function ends, whatever the waits
# run: lazy -> fault: line 16: async group never waited: an async store to `S` (element 0) issued at line 16 was never committed before the function ends

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[i] = A[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    B[1] = S[1]
    with T.attr({"async_scope": 1}):
        S[0] = A[1]
