# test: print
# desc: an S-TIR block with iteration variables, predicate, regions, annotations, allocation and init

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        for k in range(16):
            with T.sblock("reduce"):
                vi = T.axis.spatial(16, i)
                vk = T.axis.reduce(16, k)
                T.where(i < 16)
                T.reads(A[vi, 0:16])
                T.writes(C[vi])
                tmp = T.sblock_alloc_buffer((1,), "float32", scope="local")
                with T.init():
                    C[vi] = T.float32(0.0)
                T.attr({"async_scope": 1})
                tmp[0] = A[vi, vk]
                C[vi] = C[vi] + tmp[0]
