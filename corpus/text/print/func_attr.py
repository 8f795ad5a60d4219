# test: print
# desc: function attributes

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True, "target_lanes": [4, 8]})
    A[0] = T.float32(1.0)
