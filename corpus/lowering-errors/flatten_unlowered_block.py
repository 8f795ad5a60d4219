# test: pass-error
# passes: flatten-buffer
# desc: flattening needs S-TIR blocks lowered first
# error: 11:9: error: block `row` is not lowered; run lower-opaque-block before flatten-buffer

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        with T.sblock("row"):
            A[i, 0] = T.float32(0.0)
