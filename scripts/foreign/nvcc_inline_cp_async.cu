// A double-buffered copy with inline cp.async: each thread copies 16 bytes per tile into
// shared memory and writes back the 16 bytes of its neighbour (so the barrier after the wait
// matters), or, in the own-copy kernel, its own 16 bytes (so it does not).
__device__ __forceinline__ void copy16(void* smem, const void* gmem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(s), "l"(gmem));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N)); }

template <bool Neighbour>
__device__ void tiles(const float4* __restrict__ in, float4* __restrict__ out, int tiles) {
    __shared__ __align__(16) float4 buf[2][64];
    const int t = threadIdx.x;
    const int r = Neighbour ? (t + 1) % 64 : t;
    copy16(&buf[0][t], &in[t]);
    commit();
    for (int i = 0; i < tiles; ++i) {
        if (i + 1 < tiles) copy16(&buf[(i + 1) & 1][t], &in[(i + 1) * 64 + t]);
        commit();
        wait<1>();
        __syncthreads();
        float4 v = buf[i & 1][r];
        out[i * 64 + t] = make_float4(v.x + 1.0f, v.y + 1.0f, v.z + 1.0f, v.w + 1.0f);
        __syncthreads();
    }
    wait<0>();
}
extern "C" __global__ void neighbour_copy(const float4* in, float4* out, int n) { tiles<true>(in, out, n); }
extern "C" __global__ void own_copy(const float4* in, float4* out, int n) { tiles<false>(in, out, n); }
