# test: print
# desc: typed immediates of every width, booleans and special floats

# from tvm.script import tirx as T

@T.prim_func
def main(I8: T.Buffer((2,), "int8"), U8: T.Buffer((2,), "uint8"), I64: T.Buffer((2,), "int64"), H: T.Buffer((2,), "float16"), D: T.Buffer((2,), "float64"), F: T.Buffer((4,), "float32"), P: T.Buffer((2,), "bool")):
    I8[0] = T.int8(-128)
    U8[0] = T.uint8(255)
    I64[0] = T.int64(4294967296)
    H[0] = T.float16(0.5)
    D[0] = T.float64(1e-10)
    F[0] = T.float32("inf")
    F[1] = T.float32("-inf")
    F[2] = T.float32(0.1)
    P[0] = True
    P[1] = False
