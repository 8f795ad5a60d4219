# test: run
# desc: the trip count of the inner loop is read from memory in each of n iterations: the groups before an iteration are a sum over the loop, encoded by prefix sums at the points the checks need; each iteration waits for all its copies
# run: lazy n=6 -> ok

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), K: T.Buffer((4,), "int32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((3,), "float32", scope="shared")
    for i in range(n):
        for j in range(K[i % 4] % 3 + 1):
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[j] = A[(i * 16 + j) % 64]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        T.evaluate(0)
        C[i % 64] = B[0]
    T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
    T.evaluate(0)
