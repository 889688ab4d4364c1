"""A skinny bf16 matmul as a decoding step runs it: activations of a few rows times a weight in
torch.nn.Linear's layout, Y = X @ W.T (fp32 accumulation), on a 2-D grid (column blocks of W,
then row blocks of X). Reading W dominates, so it is DRAM-bound; its configs differ by how many
blocks the grid has against 132 SMs (waves), the bytes each block keeps in flight (pipeline
depth, K step), wasted MMA rows (a tall M tile for 16 rows) and warps (two warps cannot use the
warpgroup MMA)."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "matmul, skinny",
    "held_out": True,
    "kernel": "skinny_matmul_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {
        "16x8192x8192": {"M": 16, "N": 8192, "K": 8192},
        "64x14336x4096": {"M": 64, "N": 14336, "K": 4096},
        "32x2048x2048": {"M": 32, "N": 2048, "K": 2048},
    },
    "cpu_sizes": {"tiny": {"M": 20, "N": 200, "K": 136, "dtype": "float16"}},
    "work": {"flops": "2 * M * N * K", "bytes": "(M * K + N * K + M * N) * itemsize"},
    "grid": ["cdiv(N, BLOCK_N)", "cdiv(M, BLOCK_M)", "1"],
    "configs": [
        {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128, "num_warps": 4, "num_stages": 4,
         "why": "128 blocks for N=8192: about one per SM"},
        {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 256, "num_warps": 4, "num_stages": 3,
         "why": "twice the blocks, long K steps"},
        {"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_K": 128, "num_warps": 4, "num_stages": 4,
         "why": "half the blocks: some SMs idle"},
        {"BLOCK_M": 16, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3,
         "why": "32 blocks for N=8192: most SMs idle"},
        {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 128, "num_warps": 4, "num_stages": 3,
         "why": "a 32-row tile: half of it wasted at M=16"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 128, "num_warps": 4, "num_stages": 3,
         "why": "a 64-row tile: three quarters wasted at M=16, one block row at M=64"},
        {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 64, "num_warps": 4, "num_stages": 2,
         "why": "a shallow pipeline: few bytes in flight per SM"},
        {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128, "num_warps": 4, "num_stages": 6,
         "why": "a deep pipeline: more bytes in flight per SM"},
        {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 128, "num_warps": 2, "num_stages": 4,
         "why": "two warps: mma.sync instead of the warpgroup MMA"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["M", "N", "K"])
@triton.jit
def skinny_matmul_kernel(
    x_ptr, w_ptr, y_ptr, M, N, K, stride_xm, stride_wn, stride_ym,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]  # W.T's tile: K runs down
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_n[None, :] < N) & (offs_k[:, None] < k_left), other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    y_ptrs = y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


tritonscope_defaults = {
    "x_ptr": "*bf16", "w_ptr": "*bf16", "y_ptr": "*bf16", "M": 16, "N": 8192, "K": 8192,
    "stride_xm": 8192, "stride_wn": 8192, "stride_ym": 8192,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="16x8192x8192", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims, dtype = dimensions(LAUNCH_SET, size), dtype_of(LAUNCH_SET, size)
    x = torch.randn(dims["M"], dims["K"], device=device, dtype=dtype)
    w = torch.randn(dims["N"], dims["K"], device=device, dtype=dtype) / 8
    return x, w


def launcher(x, w, **config) -> Launch:
    import torch

    (M, K), (N, _) = x.shape, w.shape
    y = torch.empty(M, N, device=x.device, dtype=x.dtype)
    scalars = {"M": M, "N": N, "K": K, "stride_xm": x.stride(0), "stride_wn": w.stride(0), "stride_ym": y.stride(0)}
    launch_grid = grid({**scalars, **config})
    return Launch(lambda: skinny_matmul_kernel.fn[launch_grid](x, w, y, **scalars, **config), y, launch_grid, scalars)


def launch(x, w, **config):
    return run_once(LAUNCH_SET, launcher, (x, w), config)


def reference(x, w):
    return x.float() @ w.float().T


def work(x, w):
    from launch_set import declared_work

    (M, K), (N, _) = x.shape, w.shape
    return declared_work(LAUNCH_SET, {"M": M, "N": N, "K": K}, x.element_size())
