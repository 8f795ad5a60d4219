# test: print
# desc: two variables named i in nested scopes print as i and i_1; sibling scopes reuse the name

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(4):
        for i_1 in range(4):
            A[i * 4 + i_1] = i
    for i in range(4):
        A[i] = 0
