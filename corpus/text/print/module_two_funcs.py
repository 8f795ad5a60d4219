# test: print
# desc: a module with two functions, one private

# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def helper(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1.0)

    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        A[1] = T.float32(2.0)
