"""Fused attention for Hopper in Gluon: the scores of the next block of keys are computed on the
tensor cores while this block's softmax runs (FlashAttention-3's intra-warpgroup pipelining).

The same online softmax as fused_attention and fused_attention_tma. What `@triton.jit` cannot say
on Triton 3.6, Gluon writes out: Triton's pipeliner waits for a wgmma whose result the softmax
reads right after issuing it (`wgmma.wait_group 0`), so the tensor cores sit idle while the
special-function units take the exponentials. Here each wait names how many wgmma groups may
stay in flight: while block j's softmax runs, block j+1's scores and block j-1's P·V are computed.

Needs N_CTX to be a multiple of BLOCK_M and BLOCK_N (`launch` checks): no masking.
"""

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_init,
    warpgroup_mma_wait,
)

# Triton 3.9 renamed the TMA copies and the CTA barrier; the kernel runs on either name.
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global
_cta_barrier = getattr(gl, "barrier", None) or gl.thread_barrier


@gluon.jit
def _load_rows(desc, row, bar, smem):
    """One TMA copy of `desc`'s block at `row` into `smem`; `bar` completes when it has landed."""
    mbarrier.expect(bar, desc.block_type.nbytes)
    _tma_load(desc, [row, 0], bar, smem)


@gluon.jit
def _softmax_block(s, m_i, l_i, qk_scale):
    """The online-softmax update for one block of scores: P, the rescale factor, and the new m, l."""
    m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
    p = gl.exp2(s * qk_scale - m_new[:, None])
    alpha = gl.exp2(m_i - m_new)
    l_i = l_i * alpha + gl.sum(p, 1)
    return p, alpha, m_new, l_i


@gluon.jit
def attention_gluon_kernel(
    # Every operand is a (batch*heads*N_CTX, HEAD_DIM) descriptor: Q and Out in BLOCK_M-row
    # blocks, K and V in BLOCK_N-row blocks.
    q_desc, k_desc, v_desc, o_desc,
    sm_scale,  # 1 / sqrt(HEAD_DIM)
    N_CTX,
    HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
    BUFFERS: gl.constexpr,  # K and V blocks kept in shared memory: how far ahead the copies run
    num_warps: gl.constexpr,
):
    q_row = gl.program_id(1) * N_CTX + gl.program_id(0) * BLOCK_M
    kv_row = gl.program_id(1) * N_CTX
    dtype: gl.constexpr = q_desc.dtype
    # The warps split the rows: each warp group owns BLOCK_M / (num_warps / 4) of them, so row
    # maxima and sums never leave a warp.
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, HEAD_DIM, 16])
    # P feeds the second wgmma from registers, never through shared memory.
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    rows: gl.constexpr = gl.SliceLayout(1, s_layout)

    q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, HEAD_DIM], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [BUFFERS, BLOCK_N, HEAD_DIM], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [BUFFERS, BLOCK_N, HEAD_DIM], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_bars = gl.allocate_shared_memory(gl.int64, [BUFFERS, 1], mbarrier.MBarrierLayout())
    v_bars = gl.allocate_shared_memory(gl.int64, [BUFFERS, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(BUFFERS):
        mbarrier.init(k_bars.index(i), count=1)
        mbarrier.init(v_bars.index(i), count=1)

    # Block i of K and V lives in buffer i % BUFFERS; its barrier's phase is (i // BUFFERS) % 2.
    n_blocks = N_CTX // BLOCK_N
    _load_rows(q_desc, q_row, q_bar, q_smem)
    for i in gl.static_range(BUFFERS):
        if i < n_blocks:
            _load_rows(k_desc, kv_row + i * BLOCK_N, k_bars.index(i), k_smem.index(i))
            _load_rows(v_desc, kv_row + i * BLOCK_N, v_bars.index(i), v_smem.index(i))

    qk_scale = sm_scale * 1.44269504  # exp2 stands in for exp
    m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, layout=rows)
    l_i = gl.zeros([BLOCK_M], gl.float32, layout=rows)
    acc = warpgroup_mma_init(gl.zeros([BLOCK_M, HEAD_DIM], gl.float32, layout=o_layout))
    no_scores = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=s_layout)

    mbarrier.wait(q_bar, 0)
    mbarrier.wait(k_bars.index(0), 0)
    s = warpgroup_mma(q_smem, k_smem.index(0).permute((1, 0)), no_scores, use_acc=False, is_async=True)
    s = warpgroup_mma_wait(0, deps=(s,))
    _cta_barrier()  # every warp group is done with K block 0: its buffer takes the next
    if BUFFERS < n_blocks:
        _load_rows(k_desc, kv_row + BUFFERS * BLOCK_N, k_bars.index(0), k_smem.index(0))

    for j in range(n_blocks - 1):
        nxt = (j + 1) % BUFFERS
        # Block j+1's scores go to the tensor cores first; they run during block j's softmax.
        mbarrier.wait(k_bars.index(nxt), ((j + 1) // BUFFERS) & 1)
        s_next = warpgroup_mma(q_smem, k_smem.index(nxt).permute((1, 0)), no_scores, use_acc=False,
                               is_async=True)
        p, alpha, m_i, l_i = _softmax_block(s, m_i, l_i, qk_scale)
        # Block j-1's P·V and block j+1's scores are done by now, or soon: the softmax took as
        # long as they did. (Waiting for P·V alone, with the scores left in flight, would be
        # `warpgroup_mma_wait(1)`, but ptxas then serializes every wgmma: it cannot prove that
        # the accumulator it rescales is no longer being written.)
        acc, s = warpgroup_mma_wait(0, deps=(acc, s_next))
        acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
        mbarrier.wait(v_bars.index(j % BUFFERS), (j // BUFFERS) & 1)
        # Block j's P·V runs during block j+1's softmax, in the next turn of the loop.
        acc = warpgroup_mma(gl.convert_layout(p.to(dtype), p_layout), v_smem.index(j % BUFFERS), acc,
                            is_async=True)
        # Every warp group is past the wait: K block j+1 and V block j-1 are read; refill them.
        _cta_barrier()
        if j + 1 + BUFFERS < n_blocks:
            _load_rows(k_desc, kv_row + (j + 1 + BUFFERS) * BLOCK_N, k_bars.index(nxt), k_smem.index(nxt))
        if j >= 1 and j - 1 + BUFFERS < n_blocks:
            prev = (j - 1) % BUFFERS
            _load_rows(v_desc, kv_row + (j - 1 + BUFFERS) * BLOCK_N, v_bars.index(prev), v_smem.index(prev))

    # The last block: nothing left to prefetch.
    last = n_blocks - 1
    p, alpha, m_i, l_i = _softmax_block(s, m_i, l_i, qk_scale)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
    mbarrier.wait(v_bars.index(last % BUFFERS), (last // BUFFERS) & 1)
    acc = warpgroup_mma(gl.convert_layout(p.to(dtype), p_layout), v_smem.index(last % BUFFERS), acc, is_async=True)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    out = acc / gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))[:, None]

    mbarrier.invalidate(q_bar)
    for i in gl.static_range(BUFFERS):
        mbarrier.invalidate(k_bars.index(i))
        mbarrier.invalidate(v_bars.index(i))
    # Q's buffer is free once every warp group's wgmma are done: it stages the output.
    _cta_barrier()
    q_smem.store(out.to(dtype))
    fence_async_shared()
    _tma_store(o_desc, [q_row, 0], q_smem)
    tma.store_wait(pendings=0)


# fp16, batch 4, 16 heads of HEAD_DIM 128, N_CTX 4096. A descriptor given without a layout gets
# the one NVMMASharedLayout.get_default_for picks for its block, as `launch` passes.
tritonscope_defaults = {
    "q_desc": "tensordesc<fp16[128, 128]>", "k_desc": "tensordesc<fp16[128, 128]>",
    "v_desc": "tensordesc<fp16[128, 128]>", "o_desc": "tensordesc<fp16[128, 128]>",
    "sm_scale": 0.08838834764831845, "N_CTX": 4096,
    "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 128, "BUFFERS": 2,
    "num_warps": 8,
}


def grid(meta):
    """BLOCK_M query rows of one head per program; 64 (batch, head) pairs by default."""
    return (triton.cdiv(meta["N_CTX"], meta["BLOCK_M"]), 64)


def make_inputs(size=4096, device="cuda", batch=4, heads=16, head_dim=128):
    """Q, K, V of shape (batch, heads, size, head_dim), fp16."""
    import torch

    shape = (batch, heads, size, head_dim)
    return tuple(torch.randn(shape, device=device, dtype=torch.float16) for _ in range(3))


def launch(q, k, v, BLOCK_M=128, BLOCK_N=128, BUFFERS=2, num_warps=8, maxnreg=None):
    import torch
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    z, h, n_ctx, head_dim = q.shape
    if n_ctx % BLOCK_M or n_ctx % BLOCK_N:
        raise ValueError(f"N_CTX={n_ctx} must be a multiple of BLOCK_M={BLOCK_M} and BLOCK_N={BLOCK_N}")
    q, k, v = (t.contiguous() for t in (q, k, v))
    out = torch.empty_like(q)

    def described(t, block_rows):
        layout = gl.NVMMASharedLayout.get_default_for([block_rows, head_dim], gl.float16)
        return TensorDescriptor.from_tensor(t.view(z * h * n_ctx, head_dim), [block_rows, head_dim], layout)

    attention_gluon_kernel[(n_ctx // BLOCK_M, z * h)](
        described(q, BLOCK_M), described(k, BLOCK_N), described(v, BLOCK_N), described(out, BLOCK_M),
        head_dim**-0.5, n_ctx, HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BUFFERS=BUFFERS,
        num_warps=num_warps, **({"maxnreg": maxnreg} if maxnreg else {}),
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
