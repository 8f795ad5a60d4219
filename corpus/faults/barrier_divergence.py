# test: run
# desc: only some threads reach the barrier
# run: lazy -> fault: line 11: barrier divergence: threadIdx.x = 0 is at the barrier on line 11 but threadIdx.x = 2 has reached the end of the thread block (threadIdx.x = 0)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        if tx < 2:
            T.tvm_storage_sync("shared")
        A[tx] = T.float32(1.0)
