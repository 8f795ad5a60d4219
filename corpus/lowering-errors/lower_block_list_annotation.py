# test: pass-error
# passes: lower-opaque-block
# desc: an async annotation whose value is a list cannot become an attribute value
# error: 11:9: error: block annotation `async_commit_queue_scope` is a list; an attribute needs an integer expression

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("copy"):
            T.attr({"async_commit_queue_scope": [0, 1]})
            B[i] = A[i]
