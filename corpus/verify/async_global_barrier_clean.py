# test: run
# desc: each thread copies to global memory asynchronously, waits for its own copy, and a barrier orders it before the other thread reads it
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((2,), "float32"), G: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            G[tx] = A[tx]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.tvm_storage_sync("shared")
        B[tx] = G[1 - tx]
