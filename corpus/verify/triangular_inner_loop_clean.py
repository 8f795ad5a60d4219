# test: run
# desc: copies in a triangular inner loop `range(i)`, each waited for before it is read
# run: lazy -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32", scope="shared")
    for i in range(4):
        for j in range(i):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i * 4 + j] = A[i * 4 + j]
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
                C[i * 4 + j] = B[i * 4 + j]
