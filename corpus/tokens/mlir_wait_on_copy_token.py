# test: run
# desc: MLIR's nvgpu `device_async_wait` on the token `device_async_copy` returned (not on the group's): its verifier accepts it and its lowering drops the token. A copy's token names the group the copy joins, so after that group's commit the wait means the same as one on the group: two groups follow it, and the exact count is 2
# run: lazy -> ok
# run: eager -> ok
# run: random:2 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((3,), "float32"), C: T.Buffer((1,), "float32")):
    S = T.alloc_buffer((3,), "float32", scope="shared")
    copy = T.alloc_buffer((1,), "int64", scope="local")
    copy[0] = T.call_extern("int64", "async_copy_token", 0)
    with T.attr(0, "async_scope", 1):
        S[0] = A[0]
    with T.attr(0, "async_commit_queue_scope", 0):
        T.evaluate(0)
    for k in range(2):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[k + 1] = A[k + 1]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 2):
            with T.attr(0, "async_wait_tokens", copy[0]):
                C[0] = S[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
