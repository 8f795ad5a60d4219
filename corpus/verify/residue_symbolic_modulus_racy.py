# test: run
# desc: twin of residue_symbolic_modulus_clean: the read is outside the condition, so it reads its own copy pending whenever m > 1
# run: lazy n=9 d=3 -> fault: line 17: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 11) at i = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32, d: T.int32):
    B = T.alloc_buffer((64,), "float32", scope="shared")
    for i in range(n):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
        if i % T.max(d, 1) == T.max(d, 1) - 1:
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
            T.evaluate(0)
            T.evaluate(0)
        C[i] = B[i]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
