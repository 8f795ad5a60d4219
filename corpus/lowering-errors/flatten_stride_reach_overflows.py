# test: pass-error
# passes: flatten-buffer
# desc: a stride of 2^62 over three rows reaches beyond what int64 can index; the flat extent would wrap negative, so the buffer is refused with the element it reaches
# error: 12:9: error: buffer `A` cannot be flattened: its layout reaches element 9223372036854775811 (elem_offset + sum((extent - 1) * stride)), which int64 cannot index

# from tvm.script import tirx as T

@T.prim_func
def main(A_handle: T.handle, Out: T.Buffer((4,), "float32")):
    A = T.match_buffer(A_handle, (3, 4), "float32", strides=(T.int64(4611686018427387904), T.int64(1)))
    for i in range(4):
        Out[i] = A[0, i]
