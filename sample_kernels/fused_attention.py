"""Fused attention forward (flash attention): softmax(Q K^T / sqrt(d)) V in one pass, online softmax."""

import triton
import triton.language as tl


@triton.jit
def _attend_block(q, k_ptrs, v_ptrs, start_n, m_i, l_i, acc, qk_scale, N_CTX,
                  stride_kn, stride_vn, offs_n, MASKED: tl.constexpr):
    """One BLOCK_N-wide block of keys and values: the online-softmax update of m_i, l_i, acc."""
    if MASKED:  # only the last block can run past N_CTX
        key_valid = (start_n + offs_n) < N_CTX
        k = tl.load(k_ptrs + start_n * stride_kn, mask=key_valid[None, :], other=0.0)
        v = tl.load(v_ptrs + start_n * stride_vn, mask=key_valid[:, None], other=0.0)
    else:
        k = tl.load(k_ptrs + start_n * stride_kn)
        v = tl.load(v_ptrs + start_n * stride_vn)
    qk = tl.dot(q, k)
    if MASKED:
        # Keys past N_CTX must get no weight: -inf before the softmax.
        qk = tl.where(key_valid[None, :], qk, float("-inf"))
    # Scaling after the max lets the compiler fuse scale and subtraction into one multiply-add.
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
    # Rescale what was accumulated so far to the new maximum.
    alpha = tl.math.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(v.dtype), v, acc)
    return m_ij, l_i, acc


@triton.jit
def attention_kernel(
    Q, K, V, Out,
    sm_scale,  # 1 / sqrt(HEAD_DIM)
    stride_qz, stride_qh, stride_qm, stride_qk,
    stride_kz, stride_kh, stride_kn, stride_kk,
    stride_vz, stride_vh, stride_vn, stride_vk,
    stride_oz, stride_oh, stride_om, stride_ok,
    H, N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    # Program (start_m, off_hz) computes BLOCK_M query rows of one (batch, head).
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z * stride_qz + off_h * stride_qh
    k_offset = off_z * stride_kz + off_h * stride_kh
    v_offset = off_z * stride_vz + off_h * stride_vh
    o_offset = off_z * stride_oz + off_h * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + q_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    # K is read transposed: a HEAD_DIM x BLOCK_N tile.
    k_ptrs = K + k_offset + offs_d[:, None] * stride_kk + offs_n[None, :] * stride_kn
    v_ptrs = V + v_offset + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk

    # Running maximum and running sum of the softmax, per query row.
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # Scale by 1/sqrt(d) and by log2(e), so that exp2 can stand in for exp.
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)

    # Whole blocks of keys need no mask; only a last, partial block does.
    n_full = (N_CTX // BLOCK_N) * BLOCK_N
    for start_n in range(0, n_full, BLOCK_N):
        m_i, l_i, acc = _attend_block(q, k_ptrs, v_ptrs, start_n, m_i, l_i, acc, qk_scale, N_CTX,
                                      stride_kn, stride_vn, offs_n, MASKED=False)
    if n_full < N_CTX:
        m_i, l_i, acc = _attend_block(q, k_ptrs, v_ptrs, n_full, m_i, l_i, acc, qk_scale, N_CTX,
                                      stride_kn, stride_vn, offs_n, MASKED=True)

    acc = acc / l_i[:, None]
    o_ptrs = Out + o_offset + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


# fp16, batch 4, 16 heads of HEAD_DIM 64, N_CTX 4096, contiguous (Z, H, N_CTX, HEAD_DIM) tensors.
tritonscope_defaults = {
    "Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16",
    "sm_scale": 0.125,
    **{f"stride_{t}z": 16 * 4096 * 64 for t in "qkvo"},
    **{f"stride_{t}h": 4096 * 64 for t in "qkvo"},
    "stride_qm": 64, "stride_kn": 64, "stride_vn": 64, "stride_om": 64,
    "stride_qk": 1, "stride_kk": 1, "stride_vk": 1, "stride_ok": 1,
    "H": 16, "N_CTX": 4096,
    "HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64,
    "num_warps": 8, "num_stages": 4,
}


def make_inputs(size=4096, device="cuda", batch=4, heads=16, head_dim=64):
    """Q, K, V of shape (batch, heads, size, head_dim), fp16."""
    import torch

    shape = (batch, heads, size, head_dim)
    return tuple(torch.randn(shape, device=device, dtype=torch.float16) for _ in range(3))


def launch(q, k, v, BLOCK_M=None, BLOCK_N=None, num_warps=8, num_stages=None):
    import torch

    z, h, n_ctx, head_dim = q.shape
    # Tuned on an H100 with `tritonscope bench --vary`: wider key blocks pay off for wide heads.
    BLOCK_M = BLOCK_M or 128
    BLOCK_N = BLOCK_N or (128 if head_dim > 64 else 64)
    num_stages = num_stages or (3 if head_dim > 64 else 4)
    out = torch.empty_like(q)
    grid = (triton.cdiv(n_ctx, BLOCK_M), z * h)
    attention_kernel[grid](
        q, k, v, out, head_dim**-0.5,
        *q.stride(), *k.stride(), *v.stride(), *out.stride(),
        h, n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps, num_stages=num_stages,
    )
    return out


def reference(q, k, v):
    import torch

    return torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float()).half()


def torch_op(q, k, v):
    import torch

    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def work(q, k, v):
    z, h, n, d = q.shape
    return {"flops": 4 * z * h * n * n * d, "bytes": 4 * q.numel() * q.element_size()}
