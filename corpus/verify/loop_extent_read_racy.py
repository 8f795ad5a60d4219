# test: run
# desc: a loop extent reads the slot a copy is still writing: the read happens before the loop, before any wait
# run: lazy -> fault: line 14: read of S[1] (element 1) while an async write to it is pending (group 0 of queue 0, committed at line 11) at i = 0, j = 0

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32"), K: T.Buffer((1,), "int32"), Out: T.Buffer((2,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(1):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[1] = A[i]
        for j in range(1):
            for r in range(T.Cast("int32", S[1])):
                Out[r % 2] = T.float32(1.0)
            T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": i})
            Out[1] = S[0]
