# test: run
# desc: a serial loop launches the kernel twice; each launch waits for its own copy before it reads it and ends
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(2):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                S[tx] = A[tx + i - i]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            B[tx] = S[tx]
