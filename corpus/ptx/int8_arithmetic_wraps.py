# test: fuzz
# oracles: ptx
# seed: 5
# desc: int8 lives in 16-bit registers, sign-extended by `ld.global.s8`; every operation runs on .s16 and is narrowed back with `cvt.s16.s8`, so products and sums wrap at 8 bits exactly as in the interpreter (the ptx oracle compares both); uint8 zero-extends the same way, and casts go through the 16-bit twins
# ptx: ld.global.s8
# ptx: mul.lo.s16
# ptx: cvt.s16.s8
# ptx: st.global.s8

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "int8"), B: T.Buffer((16,), "int8"), U: T.Buffer((16,), "uint8"), Out: T.Buffer((16,), "int8"), Wide: T.Buffer((16,), "int32"), V: T.Buffer((16,), "uint8")):
    for i in range(16):
        Out[i] = A[i] * T.int8(100) + B[i] * T.int8(-77) - T.int8(127) // (A[i] % T.int8(5) + T.int8(1))
        Wide[i] = T.Cast("int32", A[i] * T.int8(64)) + T.Cast("int32", U[i] * T.uint8(200))
        V[i] = T.Cast("uint8", T.Cast("int32", B[i]) * 3) + T.max(U[i], T.uint8(250))
