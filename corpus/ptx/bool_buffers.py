# test: fuzz
# oracles: ptx
# seed: 3
# desc: a bool buffer is one byte per element, 0 or 1: a load is `ld.global.u8` and `setp.ne.u16` to a predicate, a store `selp.u16 1, 0` and `st.global.u8` (the ptx oracle compares with the interpreter)
# ptx: ld.global.u8
# ptx: setp.ne.u16
# ptx: selp.u16
# ptx: st.global.u8

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), M: T.Buffer((16,), "bool"), Out: T.Buffer((16,), "int32"), N: T.Buffer((16,), "bool")):
    for i in range(16):
        if M[i]:
            Out[i] = A[i] * 2
        else:
            Out[i] = A[i] - 1
        N[i] = not M[i] or A[i] > 3
