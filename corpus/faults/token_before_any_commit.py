# test: run
# desc: the token of the last group committed to a queue, asked before the thread's first commit to it, names no group: a fault where it is evaluated
# run: lazy -> fault: line 9: `async_group_token(1)` before the thread's first commit to queue 1: no group to name

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    tok: T.int64 = T.call_extern("int64", "async_group_token", 1)
    with T.attr(0, "async_wait_queue_scope", 1):
        with T.attr(0, "async_wait_tokens", tok):
            C[0] = A[0]
