"""Fused attention tuned for Hopper: TMA tensor descriptors for Q, K, V and Out, online softmax."""

import triton
import triton.language as tl


@triton.jit
def _attend_block(q, k_desc, v_desc, kv_row, start_n, m_i, l_i, acc, qk_scale, N_CTX,
                  BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    """One BLOCK_N-wide block of keys and values: the online-softmax update of m_i, l_i, acc."""
    # K and V are (rows, HEAD_DIM) views of every head at once: the copy engine brings each tile
    # into shared memory, where wgmma reads it, without passing through registers.
    k = k_desc.load([kv_row + start_n, 0])
    qk = tl.dot(q, k.T)
    if MASKED:
        # The last block may run past N_CTX into the next head's rows: no weight for those keys.
        key_valid = (start_n + tl.arange(0, BLOCK_N)) < N_CTX
        qk = tl.where(key_valid[None, :], qk, float("-inf"))
    # The 1/sqrt(d) * log2(e) scale folded into one multiply-add per score; exp2 stands in for exp.
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
    alpha = tl.math.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    v = v_desc.load([kv_row + start_n, 0])
    acc = tl.dot(p.to(tl.float16), v, acc)
    return m_ij, l_i, acc


@triton.jit
def attention_tma_kernel(
    # Q and Out: (batch*heads, N_CTX, HEAD_DIM) descriptors, so a query tile never crosses heads;
    # K and V: (batch*heads*N_CTX, HEAD_DIM) descriptors.
    q_desc, k_desc, v_desc, o_desc,
    sm_scale,  # 1 / sqrt(HEAD_DIM)
    N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,  # producer warps issue the TMA loads, consumers the wgmma and softmax
):
    # Program (start_m, off_hz) computes BLOCK_M query rows of one (batch, head).
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    kv_row = off_hz * N_CTX

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    # Query rows past N_CTX arrive as zeros and are clipped again at the store.
    q = q_desc.load([off_hz, start_m * BLOCK_M, 0]).reshape(BLOCK_M, HEAD_DIM)

    n_full = (N_CTX // BLOCK_N) * BLOCK_N
    for start_n in tl.range(0, n_full, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        m_i, l_i, acc = _attend_block(q, k_desc, v_desc, kv_row, start_n, m_i, l_i, acc, qk_scale, N_CTX,
                                      BLOCK_N, MASKED=False)
    if n_full < N_CTX:
        m_i, l_i, acc = _attend_block(q, k_desc, v_desc, kv_row, n_full, m_i, l_i, acc, qk_scale, N_CTX,
                                      BLOCK_N, MASKED=True)

    acc = acc / l_i[:, None]
    o_desc.store([off_hz, start_m * BLOCK_M, 0], acc.to(tl.float16).reshape(1, BLOCK_M, HEAD_DIM))


# fp16, batch 4, 16 heads of HEAD_DIM 64, N_CTX 4096, as `launch` tunes it for 64-wide heads.
# A descriptor's type names its element type and block shape, as Triton's launcher types a
# host TensorDescriptor.
tritonscope_defaults = {
    "q_desc": "tensordesc<fp16[1, 64, 64]>", "o_desc": "tensordesc<fp16[1, 64, 64]>",
    "k_desc": "tensordesc<fp16[128, 64]>", "v_desc": "tensordesc<fp16[128, 64]>",
    "sm_scale": 0.125, "N_CTX": 4096,
    "HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 128, "WARP_SPECIALIZE": False,
    "num_warps": 4, "num_stages": 2,
}


def grid(meta):
    """BLOCK_M query rows of one head per program; 64 (batch, head) pairs by default."""
    return (triton.cdiv(meta["N_CTX"], meta["BLOCK_M"]), 64)


def make_inputs(size=4096, device="cuda", batch=4, heads=16, head_dim=64):
    """Q, K, V of shape (batch, heads, size, head_dim), fp16."""
    import torch

    shape = (batch, heads, size, head_dim)
    return tuple(torch.randn(shape, device=device, dtype=torch.float16) for _ in range(3))


def launch(q, k, v, BLOCK_M=None, BLOCK_N=None, WARP_SPECIALIZE=False, num_warps=None, num_stages=None,
           maxnreg=None):
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    z, h, n_ctx, head_dim = q.shape
    # Tuned on an H100 with `tritonscope bench --vary` (docs/hopper-study.md): two or three
    # programs share each SM, so that one's softmax runs while another's wgmma does. Narrow heads:
    # one warp group of 64 query rows, three programs per SM. Wide heads: 128 rows on two warp
    # groups, capped at 128 registers (explain's occupancy what-if: no spills) for two per SM.
    wide = head_dim > 64
    BLOCK_M = BLOCK_M or (128 if wide else 64)
    BLOCK_N = BLOCK_N or (64 if wide else 128)
    num_warps = num_warps or (8 if wide else 4)
    num_stages = num_stages or 2
    maxnreg = maxnreg or (128 if wide else None)
    q, k, v = (t.contiguous() for t in (q, k, v))
    out = torch.empty_like(q)
    q_desc, o_desc = (TensorDescriptor.from_tensor(t.view(z * h, n_ctx, head_dim), [1, BLOCK_M, head_dim])
                      for t in (q, out))
    k_desc, v_desc = (TensorDescriptor.from_tensor(t.view(z * h * n_ctx, head_dim), [BLOCK_N, head_dim])
                      for t in (k, v))
    attention_tma_kernel[(triton.cdiv(n_ctx, BLOCK_M), z * h)](
        q_desc, k_desc, v_desc, o_desc, head_dim**-0.5, n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, WARP_SPECIALIZE=WARP_SPECIALIZE,
        num_warps=num_warps, num_stages=num_stages, **({"maxnreg": maxnreg} if maxnreg else {}),
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
