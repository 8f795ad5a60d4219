# test: pass-error
# passes: lower-opaque-block
# desc: a block annotated async_scope whose body starts with async_scope: lowered, the two would be one chain with the key twice
# error: 11:9: error: block `copy` has the annotation `async_scope` and its body starts with the same attribute; lowered, the two would merge into one chain with `async_scope` twice

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("copy"):
            T.attr({"async_scope": 1})
            with T.attr({"async_scope": 1}):
                B[i] = A[i]
