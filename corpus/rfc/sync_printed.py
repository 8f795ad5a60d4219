# test: run
# desc: RFC example 1 as the RFC prints it after pipelining: the prologue drops the + 1 and the body reads A[i] where A[i + 1] is meant
# run: lazy vs sync_input.py -> mismatch: C[0] differs: 3.75 (original) vs 2.75 (transformed)
# run: eager vs sync_input.py -> mismatch: C[0] differs: 3.75 (original) vs 2.75 (transformed)
# run: random:1 vs sync_input.py -> mismatch: C[0] differs: 3.75 (original) vs 2.75 (transformed)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    B[0] = A[0]
    for i in range(15):
        B[(i + 1) % 2] = A[i] + T.float32(1.0)
        C[i] = B[i % 2] + T.float32(1.0)
    C[15] = B[1] + T.float32(1.0)
