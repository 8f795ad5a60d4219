# test: run
# desc: twin of single_wait_data_count_clean: the count read from memory is at least 1, so the last copy is read pending whatever the data
# run: lazy -> fault: line 17: read of B[3] (element 3) while an async write to it is pending (group 3 of queue 0, committed at line 12) at i = 3

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), K: T.Buffer((4,), "uint8"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        if A[i] > T.float32(-1.0e30):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[i] = A[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.Cast("int32", K[0]) % 2 + 1})
    T.evaluate(0)
    for i in range(4):
        C[i] = B[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
