"""Fused attention for Hopper in Gluon, warp-specialized as FlashAttention-3 is: one warp issues
the TMA copies, two warp groups compute, and the two take turns on the tensor cores.

The same online softmax as fused_attention and fused_attention_tma. What `@triton.jit` cannot say
on Triton 3.6 for sm90 (`warp_specialize=True` stays unlowered there, and the pipeliner waits for
a wgmma whose result the softmax reads), Gluon writes out:
- a producer partition of one warp copies Q once and K, V block by block into a ring of BUFFERS
  shared slots; mbarriers say when a slot is full and when both warp groups are done with it;
- each of two consumer warp groups owns 64 of the block's 128 query rows. It issues block j+1's
  scores and block j's P·V together, runs block j+1's softmax while P·V is on the tensor cores,
  then rescales the accumulator (FlashAttention-3's intra-warpgroup overlap);
- with PING_PONG, the warp groups take turns issuing their wgmma (an mbarrier per warp group):
  one group's softmax runs while the other's matrix products do, so the exponentials and the
  tensor cores overlap across groups as well;
- the copying warp needs few registers: `setmaxnreg` gives it 24 and each consumer 240, which a
  plain 3-warp-group launch (168 per thread) could not.

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
    warpgroup_mma_wait,
)

# Triton 3.9 renamed the TMA copies; the kernel runs on either name.
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global

# Registers per thread after `setmaxnreg`: 128 copying threads at 24 leave (65536 - 128*24) / 256
# = 244 for each consumer thread, rounded down to a multiple of 8.
CONSUMER_REGISTERS = gl.constexpr(240)
PRODUCER_REGISTERS = gl.constexpr(24)


@gluon.jit
def _softmax_block(s, m_i, l_i, qk_scale):
    """The online-softmax update for one block of scores: P, the rescale factor, and the new m, l."""
    m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
    p = gl.exp2(s * qk_scale - m_new[:, None])
    alpha = gl.exp2(m_i - m_new)
    l_i = l_i * alpha + gl.sum(p, 1)
    return p, alpha, m_new, l_i


@gluon.jit
def _copy_blocks(descs, smem, bars, rows, n_blocks):
    """The producer warp: Q's two halves once, then each K and V block into the next free slot."""
    q_desc, k_desc, v_desc, o_desc = descs
    q_smem, k_smem, v_smem = smem
    q_bar, k_full, k_free, v_full, v_free, turn = bars
    q_row, kv_row = rows
    BUFFERS: gl.constexpr = k_smem.type.shape[0]
    HALF: gl.constexpr = q_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
    mbarrier.expect(q_bar, 2 * q_desc.block_type.nbytes)
    _tma_load(q_desc, [q_row, 0], q_bar, q_smem.index(0))
    _tma_load(q_desc, [q_row + HALF, 0], q_bar, q_smem.index(1))
    # Block i goes to slot i % BUFFERS once both warp groups freed the block before it there: the
    # slot's free barrier completes for the (i // BUFFERS)-th time (a new barrier counts as freed).
    for i in range(n_blocks):
        slot = i % BUFFERS
        freed = ((i // BUFFERS) & 1) ^ 1
        mbarrier.wait(k_free.index(slot), freed)
        mbarrier.expect(k_full.index(slot), k_desc.block_type.nbytes)
        _tma_load(k_desc, [kv_row + i * BLOCK_N, 0], k_full.index(slot), k_smem.index(slot))
        mbarrier.wait(v_free.index(slot), freed)
        mbarrier.expect(v_full.index(slot), v_desc.block_type.nbytes)
        _tma_load(v_desc, [kv_row + i * BLOCK_N, 0], v_full.index(slot), v_smem.index(slot))


@gluon.jit
def _attend(descs, smem, bars, rows, qk_scale, n_blocks, GROUP: gl.constexpr, PING_PONG: gl.constexpr):
    """One consumer warp group: attention for its HALF of the query rows, written to Out."""
    q_desc, k_desc, v_desc, o_desc = descs
    q_smem, k_smem, v_smem = smem
    q_bar, k_full, k_free, v_full, v_free, turn = bars
    q_row, kv_row = rows
    BUFFERS: gl.constexpr = k_smem.type.shape[0]
    HALF: gl.constexpr = q_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = k_desc.block_type.shape[1]
    dtype: gl.constexpr = q_desc.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, HEAD_DIM, 16])
    # P feeds the second wgmma from registers, never through shared memory.
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    q = q_smem.index(GROUP)
    # Turn t is this group's wgmma issues of step t (step 0: block 0's scores; step j: block j's
    # scores and block j-1's P·V; step n_blocks: the last P·V). Group 0 takes turn t once
    # `turn[0]` completed t times, group 1 once `turn[1]` did; each opens the other's turn after
    # issuing. Group 1 opens group 0's first turn.
    my_turn = turn.index(GROUP)
    their_turn = turn.index(1 - GROUP)

    m_i = gl.full([HALF], float("-inf"), gl.float32, layout=gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([HALF], gl.float32, layout=gl.SliceLayout(1, s_layout))
    acc = gl.zeros([HALF, HEAD_DIM], gl.float32, layout=o_layout)
    no_scores = gl.zeros([HALF, BLOCK_N], gl.float32, layout=s_layout)

    if PING_PONG and GROUP == 1:
        mbarrier.arrive(their_turn, count=1)
    mbarrier.wait(q_bar, 0)
    mbarrier.wait(k_full.index(0), 0)
    if PING_PONG:
        mbarrier.wait(my_turn, 0)
    s = warpgroup_mma(q, k_smem.index(0).permute((1, 0)), no_scores, use_acc=False, is_async=True)
    if PING_PONG:
        mbarrier.arrive(their_turn, count=1)
    s = warpgroup_mma_wait(0, deps=(s,))
    mbarrier.arrive(k_free.index(0), count=1)
    p, alpha, m_i, l_i = _softmax_block(s, m_i, l_i, qk_scale)
    p = gl.convert_layout(p.to(dtype), p_layout)

    for j in range(n_blocks - 1):
        nxt = (j + 1) % BUFFERS
        mbarrier.wait(k_full.index(nxt), ((j + 1) // BUFFERS) & 1)
        if PING_PONG:
            mbarrier.wait(my_turn, (j + 1) & 1)
        # Block j+1's scores, then block j's P·V: the softmax below runs while P·V does.
        s_next = warpgroup_mma(q, k_smem.index(nxt).permute((1, 0)), no_scores, use_acc=False, is_async=True)
        mbarrier.wait(v_full.index(j % BUFFERS), (j // BUFFERS) & 1)
        acc = warpgroup_mma(p, v_smem.index(j % BUFFERS), acc, is_async=True)
        if PING_PONG:
            mbarrier.arrive(their_turn, count=1)
        s = warpgroup_mma_wait(1, deps=(s_next,))  # the scores; P·V may still run
        mbarrier.arrive(k_free.index(nxt), count=1)
        p, alpha, m_i, l_i = _softmax_block(s, m_i, l_i, qk_scale)
        p = gl.convert_layout(p.to(dtype), p_layout)
        # The rescale reads the accumulator only once no wgmma writes it, which ptxas can prove
        # (a rescale with P·V in flight would make it serialize every wgmma: wgmma-serialized).
        acc = warpgroup_mma_wait(0, deps=(acc,))
        mbarrier.arrive(v_free.index(j % BUFFERS), count=1)
        acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]

    last = n_blocks - 1
    mbarrier.wait(v_full.index(last % BUFFERS), (last // BUFFERS) & 1)
    if PING_PONG:
        mbarrier.wait(my_turn, n_blocks & 1)
    acc = warpgroup_mma(p, v_smem.index(last % BUFFERS), acc, is_async=True)
    if PING_PONG and GROUP == 0:
        mbarrier.arrive(their_turn, count=1)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    out = acc / gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))[:, None]
    # This group's half of Q is read for good: it stages the output.
    q.store(out.to(dtype))
    fence_async_shared()
    _tma_store(o_desc, [q_row + GROUP * HALF, 0], q)
    tma.store_wait(pendings=0)


@gluon.jit
def attention_gluon_kernel(
    # Every operand is a (batch*heads*N_CTX, HEAD_DIM) descriptor: Q and Out in BLOCK_M/2-row
    # blocks (a warp group's half), K and V in BLOCK_N-row blocks.
    q_desc, k_desc, v_desc, o_desc,
    sm_scale,  # 1 / sqrt(HEAD_DIM)
    N_CTX,
    HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
    BUFFERS: gl.constexpr,  # K and V blocks kept in shared memory: how far ahead the copies run
    PING_PONG: gl.constexpr,  # the two warp groups take turns on the tensor cores
):
    dtype: gl.constexpr = q_desc.dtype
    HALF: gl.constexpr = BLOCK_M // 2
    q_smem = gl.allocate_shared_memory(dtype, [2, HALF, HEAD_DIM], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [BUFFERS, BLOCK_N, HEAD_DIM], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [BUFFERS, BLOCK_N, HEAD_DIM], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_full = gl.allocate_shared_memory(gl.int64, [BUFFERS, 1], mbarrier.MBarrierLayout())
    k_free = gl.allocate_shared_memory(gl.int64, [BUFFERS, 1], mbarrier.MBarrierLayout())
    v_full = gl.allocate_shared_memory(gl.int64, [BUFFERS, 1], mbarrier.MBarrierLayout())
    v_free = gl.allocate_shared_memory(gl.int64, [BUFFERS, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    mbarrier.init(turn.index(0), count=1)
    mbarrier.init(turn.index(1), count=1)
    for i in gl.static_range(BUFFERS):
        mbarrier.init(k_full.index(i), count=1)
        mbarrier.init(v_full.index(i), count=1)
        mbarrier.init(k_free.index(i), count=2)  # both warp groups free it
        mbarrier.init(v_free.index(i), count=2)

    descs = (q_desc, k_desc, v_desc, o_desc)
    smem = (q_smem, k_smem, v_smem)
    bars = (q_bar, k_full, k_free, v_full, v_free, turn)
    rows = (gl.program_id(1) * N_CTX + gl.program_id(0) * BLOCK_M, gl.program_id(1) * N_CTX)
    qk_scale = sm_scale * 1.44269504  # exp2 stands in for exp
    n_blocks = N_CTX // BLOCK_N
    # The default partition (the launch's 4 warps) is warp group 0; the workers are warp group 1
    # (4 warps) and the copying warp.
    gl.warp_specialize(
        [
            (_attend, (descs, smem, bars, rows, qk_scale, n_blocks, 0, PING_PONG)),
            (_attend, (descs, smem, bars, rows, qk_scale, n_blocks, 1, PING_PONG)),
            (_copy_blocks, (descs, smem, bars, rows, n_blocks)),
        ],
        [4, 1],
        [CONSUMER_REGISTERS, PRODUCER_REGISTERS],
    )


# fp16, batch 4, 16 heads of HEAD_DIM 128, N_CTX 4096. A descriptor given without a layout gets
# the one NVMMASharedLayout.get_default_for picks for its block, as `launch` passes.
tritonscope_defaults = {
    "q_desc": "tensordesc<fp16[64, 128]>", "k_desc": "tensordesc<fp16[128, 128]>",
    "v_desc": "tensordesc<fp16[128, 128]>", "o_desc": "tensordesc<fp16[64, 128]>",
    "sm_scale": 0.08838834764831845, "N_CTX": 4096,
    "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 128, "BUFFERS": 3, "PING_PONG": True,
    "num_warps": 4,
}


def grid(meta):
    """BLOCK_M query rows of one head per program; 64 (batch, head) pairs by default."""
    return (triton.cdiv(meta["N_CTX"], meta["BLOCK_M"]), 64)


def make_inputs(size=4096, device="cuda", batch=4, heads=16, head_dim=128):
    """Q, K, V of shape (batch, heads, size, head_dim), fp16."""
    import torch

    shape = (batch, heads, size, head_dim)
    return tuple(torch.randn(shape, device=device, dtype=torch.float16) for _ in range(3))


def launch(q, k, v, BLOCK_M=128, BLOCK_N=128, BUFFERS=3, PING_PONG=True):
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
        described(q, BLOCK_M // 2), described(k, BLOCK_N), described(v, BLOCK_N), described(out, BLOCK_M // 2),
        head_dim**-0.5, n_ctx, HEAD_DIM=head_dim, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BUFFERS=BUFFERS,
        PING_PONG=PING_PONG, num_warps=4,
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
