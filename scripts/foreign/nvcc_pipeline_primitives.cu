#include <cuda_pipeline.h>

// Each block streams TILES tiles of 128 floats through a 3-deep shared ring, scaling each.
extern "C" __global__ void pipelined_scale(const float* __restrict__ in, float* __restrict__ out, int tiles) {
    __shared__ __align__(16) float ring[3][128];
    const int t = threadIdx.x;
    const float* src = in + (size_t)blockIdx.x * tiles * 128;
    float* dst = out + (size_t)blockIdx.x * tiles * 128;
    for (int s = 0; s < 2 && s < tiles; ++s) {
        __pipeline_memcpy_async(&ring[s][t], &src[s * 128 + t], sizeof(float));
        __pipeline_commit();
    }
    for (int i = 0; i < tiles; ++i) {
        if (i + 2 < tiles) {
            __pipeline_memcpy_async(&ring[(i + 2) % 3][t], &src[(i + 2) * 128 + t], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(2);
        __syncthreads();
        dst[i * 128 + t] = ring[i % 3][(t + 1) % 128] * 2.0f;
        __syncthreads();
    }
    // The last groups are empty; waiting for them anyway is harmless.
    __pipeline_wait_prior(0);
}

// The same ring as cuda_pipeline.h's examples write it: a commit every iteration (empty in the
// last two) and no wait at the end, so each thread exits with empty groups in flight, which is
// correct: a group without copies has nothing left to complete.
extern "C" __global__ void pipelined_scale_idiom(const float* __restrict__ in, float* __restrict__ out, int tiles) {
    __shared__ __align__(16) float ring[3][128];
    const int t = threadIdx.x;
    const float* src = in + (size_t)blockIdx.x * tiles * 128;
    float* dst = out + (size_t)blockIdx.x * tiles * 128;
    for (int s = 0; s < 2; ++s) {
        if (s < tiles) {
            __pipeline_memcpy_async(&ring[s][t], &src[s * 128 + t], sizeof(float));
        }
        __pipeline_commit();
    }
    for (int i = 0; i < tiles; ++i) {
        if (i + 2 < tiles) {
            __pipeline_memcpy_async(&ring[(i + 2) % 3][t], &src[(i + 2) * 128 + t], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(2);
        __syncthreads();
        dst[i * 128 + t] = ring[i % 3][(t + 1) % 128] * 2.0f;
        __syncthreads();
    }
}
