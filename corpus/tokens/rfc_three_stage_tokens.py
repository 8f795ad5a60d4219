# test: run
# desc: the RFC's three-stage example pipelined with waits on tokens (inject-software-pipeline-tokens): each group's token kept in a ring, each wait naming the groups its statement reads; runs like the loop before pipelining under every schedule
# run: lazy A=arange vs ../rfc/three_stage_input.py -> ok
# run: eager A=arange vs ../rfc/three_stage_input.py -> ok
# run: random:3 A=arange vs ../rfc/three_stage_input.py -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    i_tokens_q1_r0 = T.alloc_buffer((2,), "int64", scope="local")
    i_tokens_q0_r0 = T.alloc_buffer((2,), "int64", scope="local")
    B = T.alloc_buffer((2, 1), "float32", scope="shared")
    C = T.alloc_buffer((2, 1), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[0, 0] = A[0] + T.float32(1.0)
    i_tokens_q0_r0[0] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B[1, 0] = A[1] + T.float32(1.0)
    i_tokens_q0_r0[1] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[0]), "async_scope": 1}):
        C[0, 0] = B[0, 0] + T.float32(1.0)
    i_tokens_q1_r0[0] = T.call_extern("int64", "async_group_token", 1)
    for i in range(14):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[(i + 2) % 2, 0] = A[i + 2] + T.float32(1.0)
        i_tokens_q0_r0[(i + 2) % 2] = T.call_extern("int64", "async_group_token", 0)
        with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[(i + 1) % 2]), "async_scope": 1}):
            C[(i + 1) % 2, 0] = B[(i + 1) % 2, 0] + T.float32(1.0)
        i_tokens_q1_r0[(i + 1) % 2] = T.call_extern("int64", "async_group_token", 1)
        T.attr({"async_wait_queue_scope": 1, "async_wait_tokens": T.tvm_tuple(i_tokens_q1_r0[i % 2])})
        D[i] = C[i % 2, 0] + T.float32(1.0)
    with T.attr({"async_commit_queue_scope": 1, "async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[1]), "async_scope": 1}):
        C[1, 0] = B[1, 0] + T.float32(1.0)
    i_tokens_q1_r0[1] = T.call_extern("int64", "async_group_token", 1)
    with T.attr({"async_wait_queue_scope": 1, "async_wait_tokens": T.tvm_tuple(i_tokens_q1_r0[0])}):
        D[14] = C[0, 0] + T.float32(1.0)
    T.attr({"async_wait_queue_scope": 1, "async_wait_tokens": T.tvm_tuple(i_tokens_q1_r0[1])})
    D[15] = C[1, 0] + T.float32(1.0)
