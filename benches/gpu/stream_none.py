# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1073741824,), "float32"), C: T.Buffer((1073741824,), "float32")):
    for bx in T.thread_binding(32768, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            B = T.alloc_buffer((512,), "float32", scope="shared")
            for i in T.serial(64):
                B[T.Ramp(tx * 4, 1, 4)] = A[T.Ramp(((bx * 64 + i) * 128 + tx) * 4, 1, 4)]
                C[T.Ramp(((bx * 64 + i) * 128 + tx) * 4, 1, 4)] = B[T.Ramp(tx * 4, 1, 4)] * T.Broadcast(T.float32(2.0), 4) + T.Broadcast(T.float32(1.0), 4)
