# test: run
# desc: a buffer extent is at least 0 (the interpreter refuses a negative one): the count 1 for n < 0 never runs; a counterexample at n = -1 would break the program's precondition
# run: lazy n=1 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((n,), "float32"), D: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), n: T.int32):
    B = T.alloc_buffer((1,), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0] = D[0]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": T.if_then_else(n < 0, 1, 0)}):
        C[0] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
