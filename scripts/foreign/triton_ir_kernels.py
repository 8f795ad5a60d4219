"""Triton kernels compiled ahead of time by scripts/foreign_ir.py for their TTGIR (no GPU needed).

Each kernel has a software-pipelined loop whose loads Triton turns into asynchronous copies
(`ttg.async_copy_global_to_local` on sm_80, TMA or cp.async on sm_90), so the token IR records
which wait covers which copy. The matmul and the chunked row sum come from triton_kernels.py.
"""

import triton
import triton.language as tl


@triton.jit
def dynamic_trip_sum(x_ptr, n_ptr, out_ptr, stride, BLOCK: tl.constexpr, WIDTH: tl.constexpr):
    """out[row, :] = sum over i < n of x[row, i*BLOCK : (i+1)*BLOCK, :] with n read from memory."""
    row = tl.program_id(0)
    n = tl.load(n_ptr)
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, WIDTH)
    base = x_ptr + row * stride
    acc = tl.zeros((BLOCK, WIDTH), dtype=tl.float32)
    for i in tl.range(0, n, num_stages=3):
        acc += tl.load(base + (i * BLOCK + rows)[:, None] * WIDTH + cols[None, :])
    tl.store(out_ptr + row * BLOCK * WIDTH + rows[:, None] * WIDTH + cols[None, :], acc)


@triton.jit
def dynamic_trip_matmul(a_ptr, b_ptr, c_ptr, k_ptr, stride_am, stride_bk, stride_cm,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B where the number of K tiles is read from memory (trip count unknown to the compiler)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tiles = tl.load(k_ptr)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tiles):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK
        b += BK * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


@triton.jit
def flash_attention(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, stride_head, stride_row, scale,
                    BM: tl.constexpr, BN: tl.constexpr, HEAD: tl.constexpr):
    """Attention forward with online softmax: q loaded once, one pipelined loop over K/V blocks."""
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    base = head * stride_head
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_row + offs_d[None, :])
    k_ptrs = k_ptr + base + offs_n[None, :] * stride_row + offs_d[:, None]
    v_ptrs = v_ptr + base + offs_n[:, None] * stride_row + offs_d[None, :]
    m_i = tl.full((BM,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, HEAD), dtype=tl.float32)
    for start_n in range(0, seq_len, BN):
        k = tl.load(k_ptrs + start_n * stride_row)
        qk = tl.dot(q, k) * scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs + start_n * stride_row)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_row + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_row, scale, start_m, lo, hi,
                      DIAGONAL: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """One pass of online softmax over the K/V blocks [lo, hi); DIAGONAL masks j > i."""
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    for start_n in range(lo, hi, BN):
        k = tl.load(k_ptrs + start_n * stride_row)
        qk = tl.dot(q, k) * scale
        if DIAGONAL:
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n[None, :]), qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs + start_n * stride_row)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def causal_attention(q_ptr, k_ptr, v_ptr, o_ptr, stride_head, stride_row, scale,
                     BM: tl.constexpr, BN: tl.constexpr, HEAD: tl.constexpr):
    """Causal attention forward in two pipelined loops: the blocks left of the diagonal, then the
    diagonal blocks with the causal mask."""
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    base = head * stride_head
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_row + offs_d[None, :])
    k_ptrs = k_ptr + base + offs_n[None, :] * stride_row + offs_d[:, None]
    v_ptrs = v_ptr + base + offs_n[:, None] * stride_row + offs_d[None, :]
    m_i = tl.full((BM,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, HEAD), dtype=tl.float32)
    acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_row, scale, start_m,
                                      0, start_m * BM, False, BM, BN)
    acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_row, scale, start_m,
                                      start_m * BM, (start_m + 1) * BM, True, BM, BN)
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_row + offs_d[None, :], acc.to(tl.float16))
