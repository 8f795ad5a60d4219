# test: run
# desc: the RFC's async example pipelined with waits on tokens (inject-software-pipeline-tokens): each group's token kept in a ring, each wait naming the groups its statement reads; runs like the loop before pipelining under every schedule
# run: lazy A=arange vs ../rfc/async_input.py -> ok
# run: eager A=arange vs ../rfc/async_input.py -> ok
# run: random:3 A=arange vs ../rfc/async_input.py -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    i_tokens_q0_r0 = T.alloc_buffer((2,), "int64", scope="local")
    B = T.alloc_buffer((2, 1), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0, 0] = A[0] + T.float32(1.0)
    i_tokens_q0_r0[0] = T.call_extern("int64", "async_group_token", 0)
    for i in range(15):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[(i + 1) % 2, 0] = A[i + 1] + T.float32(1.0)
        i_tokens_q0_r0[(i + 1) % 2] = T.call_extern("int64", "async_group_token", 0)
        T.attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[i % 2])})
        C[i] = B[i % 2, 0] + T.float32(1.0)
    T.attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[1])})
    C[15] = B[1, 0] + T.float32(1.0)
