# test: run
# desc: each block copies to global memory asynchronously and waits, but the barrier orders only its own block: the other block's read races with the copy
# run: lazy -> fault: line 12: cross-block race: blockIdx.x = 1 writes G[1] (element 1) asynchronously, read by blockIdx.x = 0 at line 15; nothing orders the blocks of one kernel (threadIdx.x = 0, blockIdx.x = 1)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), G: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(1, thread="threadIdx.x"):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                G[bx] = A[bx]
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.tvm_storage_sync("shared")
            B[bx] = G[1 - bx]
