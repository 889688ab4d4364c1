"""A square-ish bf16 matmul, C = A @ B (fp32 accumulation), on a 1-D grid of C tiles walked in
groups of GROUP_M tile rows (Triton's tutorial order, for L2 reuse). Its configs differ by the
tile (blocks per SM, reuse, waves over 132 SMs), warps, pipeline depth, and the tile order; one
asks for more shared memory than an SM has and must be skipped. Sizes: a large square product,
one whose tiles make 1.2 to 2.5 waves (tails), and one with fewer big tiles than SMs."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "matmul",
    "held_out": False,
    "kernel": "matmul_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {
        "8192^3": {"M": 8192, "N": 8192, "K": 8192},
        "2304x2304x4096": {"M": 2304, "N": 2304, "K": 4096},
        "1024x1024x8192": {"M": 1024, "N": 1024, "K": 8192},
    },
    "cpu_sizes": {"tiny": {"M": 160, "N": 272, "K": 96, "dtype": "float16"}},
    "work": {"flops": "2 * M * N * K", "bytes": "(M * K + K * N + M * N) * itemsize"},
    "grid": ["cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", "1", "1"],
    "configs": [
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3,
         "why": "a large tile, two warpgroups, 3 stages (144 KiB)"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 4, "num_stages": 4,
         "why": "half the tile: twice the blocks, one warpgroup, 4 stages"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3,
         "why": "the same tile with two warpgroups"},
        {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 4, "num_stages": 4,
         "why": "a smaller tile: more blocks to fill the SMs, less reuse"},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 1, "num_warps": 8, "num_stages": 3,
         "why": "the first config in plain row order: less L2 reuse between blocks running together"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 4, "num_stages": 2,
         "why": "a shallow pipeline: the loads are hidden less"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 4, "num_stages": 6,
         "why": "short K steps, a deep pipeline"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 4, "num_stages": 3,
         "why": "a small tile: low arithmetic intensity, many blocks per SM"},
        {"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3,
         "why": "a tall tile"},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 4,
         "why": "the first config with 4 stages (192 KiB)"},
        {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 4,
         "why": "256 KiB of shared memory, over an SM's 227: must be skipped"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


tritonscope_defaults = {
    "a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": 8192, "N": 8192, "K": 8192,
    "stride_am": 8192, "stride_ak": 1, "stride_bk": 8192, "stride_bn": 1, "stride_cm": 8192, "stride_cn": 1,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="8192^3", device="cuda"):
    import torch
    from launch_set import dimensions, dtype_of

    dims, dtype = dimensions(LAUNCH_SET, size), dtype_of(LAUNCH_SET, size)
    a = torch.randn(dims["M"], dims["K"], device=device, dtype=dtype)
    b = torch.randn(dims["K"], dims["N"], device=device, dtype=dtype)
    return a, b


def launcher(a, b, **config) -> Launch:
    import torch

    (M, K), (_, N) = a.shape, b.shape
    c = torch.empty(M, N, device=a.device, dtype=a.dtype)
    scalars = {"M": M, "N": N, "K": K, "stride_am": a.stride(0), "stride_ak": a.stride(1)}
    scalars.update(stride_bk=b.stride(0), stride_bn=b.stride(1), stride_cm=c.stride(0), stride_cn=c.stride(1))
    launch_grid = grid({**scalars, **config})
    return Launch(lambda: matmul_kernel.fn[launch_grid](a, b, c, **scalars, **config), c, launch_grid, scalars)


def launch(a, b, **config):
    return run_once(LAUNCH_SET, launcher, (a, b), config)


def reference(a, b):
    return a.float() @ b.float()


def work(a, b):
    from launch_set import declared_work

    (M, K), (_, N) = a.shape, b.shape
    return declared_work(LAUNCH_SET, {"M": M, "N": N, "K": K}, a.element_size())
