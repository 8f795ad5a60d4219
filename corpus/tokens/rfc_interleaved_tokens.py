# test: run
# desc: the RFC's interleaved example pipelined with waits on tokens (inject-software-pipeline-tokens): each group's token kept in a ring, each wait naming the groups its statement reads; runs like the loop before pipelining under every schedule
# run: lazy A=arange B=ones vs ../rfc/interleaved_input.py -> ok
# run: eager A=arange B=ones vs ../rfc/interleaved_input.py -> ok
# run: random:3 A=arange B=ones vs ../rfc/interleaved_input.py -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    i_tokens_q0_r1 = T.alloc_buffer((4,), "int64", scope="local")
    i_tokens_q0_r0 = T.alloc_buffer((4,), "int64", scope="local")
    A_shared = T.alloc_buffer((4, 1), "float32", scope="shared")
    B_shared = T.alloc_buffer((3, 1), "float32", scope="shared")
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        A_shared[0, 0] = A[0]
    i_tokens_q0_r0[0] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B_shared[0, 0] = B[0]
    i_tokens_q0_r1[0] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        A_shared[1, 0] = A[1]
    i_tokens_q0_r0[1] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B_shared[1, 0] = B[1]
    i_tokens_q0_r1[1] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        A_shared[2, 0] = A[2]
    i_tokens_q0_r0[2] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
        B_shared[2, 0] = B[2]
    i_tokens_q0_r1[2] = T.call_extern("int64", "async_group_token", 0)
    for i in range(13):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            A_shared[(i + 3) % 4, 0] = A[i + 3]
        i_tokens_q0_r0[(i + 3) % 4] = T.call_extern("int64", "async_group_token", 0)
        with T.attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[i % 4], i_tokens_q0_r1[i % 4])}):
            C[i] = A_shared[i % 4, 0] + B_shared[i % 3, 0]
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B_shared[(i + 3) % 3, 0] = B[i + 3]
        i_tokens_q0_r1[(i + 3) % 4] = T.call_extern("int64", "async_group_token", 0)
    with T.attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[1], i_tokens_q0_r1[1])}):
        C[13] = A_shared[1, 0] + B_shared[1, 0]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[2], i_tokens_q0_r1[2])}):
        C[14] = A_shared[2, 0] + B_shared[2, 0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_tokens": T.tvm_tuple(i_tokens_q0_r0[3], i_tokens_q0_r1[3])})
    C[15] = A_shared[3, 0] + B_shared[0, 0]
