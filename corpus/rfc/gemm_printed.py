# test: run
# desc: the RFC's multi-stage GEMM as printed (shared copies 4x buffered and asynchronous, local copies double buffered; a tile has two slices, compute(a, b) accumulates a * b into C[0]); the epilogue reads A_shared[0, ...] where the last tiles are meant, and its count 1 - i is -1 in the last iteration
# run: lazy vs gemm_reference.py -> mismatch: the transformed program faults: line 43: async_wait_inflight_count is -1 for queue 0; it must be at least 0 at i = 2
# run: eager vs gemm_reference.py -> mismatch: the transformed program faults: line 43: async_wait_inflight_count is -1 for queue 0; it must be at least 0 at i = 2

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), C: T.Buffer((1,), "float32")):
    A_shared = T.alloc_buffer((4, 2), "float32", scope="shared")
    B_shared = T.alloc_buffer((4, 2), "float32", scope="shared")
    A_local = T.alloc_buffer((2,), "float32", scope="local")
    B_local = T.alloc_buffer((2,), "float32", scope="local")
    C[0] = T.float32(0.0)
    for i in range(3):
        with T.attr({"async_commit_queue_scope": 0}):
            with T.attr({"async_scope": 1}):
                for k1 in range(2):
                    A_shared[i, k1] = A[i * 2 + k1]
            with T.attr({"async_scope": 1}):
                for k1 in range(2):
                    B_shared[i, k1] = B[i * 2 + k1]
        if 2 <= i:
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
                A_local[0] = A_shared[0, 0]
                B_local[0] = B_shared[0, 0]
    for i in range(125):
        with T.attr({"async_commit_queue_scope": 0}):
            with T.attr({"async_scope": 1}):
                for k1 in range(2):
                    A_shared[(i + 3) % 4, k1] = A[(i + 3) * 2 + k1]
            with T.attr({"async_scope": 1}):
                for k1 in range(2):
                    B_shared[(i + 3) % 4, k1] = B[(i + 3) * 2 + k1]
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 2}):
            A_local[1] = A_shared[i % 4, 1]
            B_local[1] = B_shared[i % 4, 1]
        C[0] = C[0] + A_local[0] * B_local[0]
        A_local[0] = A_shared[(i + 1) % 4, 0]
        B_local[0] = B_shared[(i + 1) % 4, 0]
        C[0] = C[0] + A_local[1] * B_local[1]
    for i in range(3):
        with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 1 - i}):
            A_local[1] = A_shared[0, 1]
            B_local[1] = B_shared[0, 1]
        C[0] = C[0] + A_local[0] * B_local[0]
        if i < 2:
            A_local[0] = A_shared[0, 0]
            B_local[0] = B_shared[0, 0]
        C[0] = C[0] + A_local[1] * B_local[1]
