"""Attention's forward pass, non-causal, in the flash-attention form (Triton's tutorial 06 without
TMA or warp specialization): a program takes BLOCK_M queries of one head and walks the keys and
values BLOCK_N at a time with an online softmax; bf16 in, fp32 accumulation. Compute-bound at the
large size; at the small one the grid has about one block per SM. Its configs differ by the query
tile (blocks and waves, registers), the key tile (MMA shape, shared memory per stage), warps and
pipeline depth; one asks for more shared memory than an SM has."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "attention, forward",
    "held_out": False,
    "kernel": "attention_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {
        "4x32x4096x128": {"Z": 4, "H": 32, "N_CTX": 4096, "HEAD_DIM": 128},
        "1x16x1024x64": {"Z": 1, "H": 16, "N_CTX": 1024, "HEAD_DIM": 64},
        "8x16x2048x64": {"Z": 8, "H": 16, "N_CTX": 2048, "HEAD_DIM": 64},
    },
    "cpu_sizes": {"tiny": {"Z": 1, "H": 2, "N_CTX": 96, "HEAD_DIM": 32, "dtype": "float16"}},
    "work": {"flops": "4 * Z * H * N_CTX * N_CTX * HEAD_DIM", "bytes": "4 * Z * H * N_CTX * HEAD_DIM * itemsize"},
    "grid": ["cdiv(N_CTX, BLOCK_M)", "Z * H", "1"],
    "configs": [
        {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 3, "why": "two warpgroups, 3 stages"},
        {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 4, "num_stages": 3, "why": "one warpgroup for 128 queries"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "num_warps": 8, "num_stages": 2, "why": "a larger key tile"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 4, "num_stages": 3, "why": "half the query tile: twice the blocks"},
        {"BLOCK_M": 64, "BLOCK_N": 128, "num_warps": 4, "num_stages": 2, "why": "a small query tile, large key tile"},
        {"BLOCK_M": 128, "BLOCK_N": 32, "num_warps": 4, "num_stages": 4, "why": "a narrow key tile, 4 stages"},
        {"BLOCK_M": 64, "BLOCK_N": 32, "num_warps": 4, "num_stages": 3, "why": "small tiles: low reuse"},
        {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 1, "why": "no pipelining of K and V"},
        {"BLOCK_M": 256, "BLOCK_N": 64, "num_warps": 8, "num_stages": 3, "why": "a tall query tile: half the blocks"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "num_warps": 8, "num_stages": 4,
         "why": "4 stages of key and value tiles: fits at head size 64, over the shared memory at 128"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["N_CTX", "HEAD_DIM"])
@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, sm_scale, stride_z, stride_h, stride_m, Z, H, N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0)
    off_z, off_h = tl.program_id(1) // H, tl.program_id(1) % H
    base = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_m + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp2 below
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + base + cols[None, :] * stride_m + offs_d[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        qk = tl.where(cols[None, :] < N_CTX, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + cols[:, None] * stride_m + offs_d[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    out_ptrs = out_ptr + base + offs_m[:, None] * stride_m + offs_d[None, :]
    tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


tritonscope_defaults = {
    "q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16", "out_ptr": "*bf16", "sm_scale": 0.088,
    "stride_z": 16777216, "stride_h": 524288, "stride_m": 128, "Z": 4, "H": 32, "N_CTX": 4096, "HEAD_DIM": 128,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="4x32x4096x128", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims, dtype = dimensions(LAUNCH_SET, size), dtype_of(LAUNCH_SET, size)
    shape = (dims["Z"], dims["H"], dims["N_CTX"], dims["HEAD_DIM"])
    return tuple(torch.randn(shape, device=device, dtype=dtype) for _ in range(3))


def launcher(q, k, v, **config) -> Launch:
    import torch

    out = torch.empty_like(q)
    Z, H, N_CTX, HEAD_DIM = q.shape
    scalars = {"sm_scale": HEAD_DIM**-0.5, "stride_z": q.stride(0), "stride_h": q.stride(1), "stride_m": q.stride(2)}
    scalars.update(Z=Z, H=H, N_CTX=N_CTX)
    launch_grid = grid({**scalars, "HEAD_DIM": HEAD_DIM, **config})
    run = lambda: attention_kernel.fn[launch_grid](q, k, v, out, **scalars, HEAD_DIM=HEAD_DIM, **config)  # noqa: E731
    return Launch(run, out, launch_grid, {**scalars, "HEAD_DIM": HEAD_DIM})


def launch(q, k, v, **config):
    return run_once(LAUNCH_SET, launcher, (q, k, v), config)


def reference(q, k, v):
    import torch

    return torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float())


def work(q, k, v):
    from launch_set import declared_work

    Z, H, N_CTX, HEAD_DIM = q.shape
    return declared_work(LAUNCH_SET, {"Z": Z, "H": H, "N_CTX": N_CTX, "HEAD_DIM": HEAD_DIM}, q.element_size())
