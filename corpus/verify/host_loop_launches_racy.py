# test: run
# desc: a serial loop launches the kernel twice; the first launch commits a copy and only the second waits, which is another launch's thread
# run: lazy -> fault: line 13: async group never waited: group 0 of queue 0 (committed at line 13) is still in flight when the thread block ends, holding its async store issued at line 14 (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(2):
        for tx in T.thread_binding(2, thread="threadIdx.x"):
            if i == 0:
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[tx] = A[tx]
            if i == 1:
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
                B[tx] = A[tx]
