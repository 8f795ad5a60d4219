# test: run
# desc: the condition tx == k around a commit is an interval of k for each thread; the wait under k == 3 runs in no iteration where thread 0 could use it, so thread 0 reads its copy pending
# run: lazy -> fault: line 19: read of S[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 13) at k = 1 (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for k in range(4):
            if tx == k:
                with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                    S[k] = A[k]
            if k == 3:
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
                T.evaluate(0)
            if k == 1:
                B[tx] = S[tx]
