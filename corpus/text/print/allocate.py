# test: print
# desc: low-level T.allocate with a buffer declared over its data, and a conditional allocation

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.allocate([16], "float32", "shared") as buf:
        S = T.decl_buffer((16,), "float32", scope="shared", data=buf)
        for i in range(16):
            S[i] = A[i]
    tmp = T.allocate([4], "float32", "local", False, annotations={"note": "unused"})
    T.evaluate(0)
