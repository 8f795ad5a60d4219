# test: run
# desc: without any barrier, threads run one after the other, so thread 0 reads thread 1's slot before thread 1 wrote it; a different thread order fails the other way
# run: lazy -> fault: line 15: read of B[1] (element 1), which was allocated but never written (threadIdx.x = 0)
# run: lazy order=2 -> fault: line 15: read of B[0] (element 0), which was allocated but never written (threadIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[tx] = A[tx]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
            C[tx] = B[1 - tx]
