"""Triton kernels compiled ahead of time for sm_80 and sm_90a by scripts/foreign_ptx.py (no GPU needed)."""

import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak: tl.constexpr, stride_bk,
           stride_bn: tl.constexpr, stride_cm, stride_cn: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B for f16 A (M x K) and B (K x N), f32 C; the K loop is software-pipelined."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * stride_ak
        b += BK * stride_bk
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc)


@triton.jit
def row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[row, j] = sum over chunks c of x[row, c * BLOCK + j]; a pipelined loop without a dot."""
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=3):
        acc += tl.load(x_ptr + row * n + start + tl.arange(0, BLOCK))
    tl.store(out_ptr + row * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def tma_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B through tensor descriptors the kernel builds itself (tl.make_tensor_descriptor):
    on sm_90a the loads are TMA copies completing on mbarriers and the store a bulk TMA store."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        acc = tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)
