"""A mixture-of-experts matmul as vLLM's fused MoE launches one (written for tritonscope, not copied
from vLLM; `fit --emit-config vllm` is tested on it): a Mixtral-like layer's first
projection, 8 experts of 14336 x 4096 bf16 weights in torch.nn.Linear's layout, each token routed
to 2. The tokens' slots are sorted by expert, each expert's run padded to whole blocks of
BLOCK_SIZE_M; a program multiplies one block of sorted slots by one column block of its expert's
weights, in grouped order. Reading the weights dominates at small batches (DRAM-bound), the
tensor cores at large ones. Its configs are vLLM's config keys (BLOCK_SIZE_M/N/K, GROUP_SIZE_M,
num_warps, num_stages): what vLLM's tuning picks per batch size M. The expert a block reads comes
from memory: the model cannot tell which blocks share an expert's weights."""

import triton
import triton.language as tl
from launch_set import Launch, autotune_configs, grid_of, run_once

LAUNCH_SET = {
    "kind": "matmul, mixture of experts",
    "held_out": True,
    "kernel": "moe_matmul_kernel",
    "dtype": "bfloat16",
    "tolerance": 0.02,
    "sizes": {
        "M16": {"M": 16, "N": 14336, "K": 4096, "E": 8, "TOP_K": 2},
        "M256": {"M": 256, "N": 14336, "K": 4096, "E": 8, "TOP_K": 2},
        "M2048": {"M": 2048, "N": 14336, "K": 4096, "E": 8, "TOP_K": 2},
    },
    "cpu_sizes": {"tiny": {"M": 5, "N": 72, "K": 40, "E": 3, "TOP_K": 2, "dtype": "float16"}},
    "work": {"flops": "2 * M * TOP_K * N * K", "bytes": "(M * K + E * N * K + M * TOP_K * N) * itemsize"},
    "grid": ["cdiv(M * TOP_K + E * (BLOCK_SIZE_M - 1), BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", "1", "1"],
    "configs": [
        {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1, "num_warps": 4,
         "num_stages": 4, "why": "vLLM's small-batch shape: 16-slot blocks, 4 stages"},
        {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1, "num_warps": 4,
         "num_stages": 3, "why": "wider column blocks: half the programs"},
        {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 8, "num_warps": 4,
         "num_stages": 4, "why": "32-slot blocks, grouped"},
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "num_warps": 4,
         "num_stages": 4, "why": "64-slot blocks: padding at small batches"},
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "num_warps": 4,
         "num_stages": 3, "why": "vLLM's mid-batch shape"},
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 16, "num_warps": 8,
         "num_stages": 3, "why": "vLLM's large-batch shape: 128-slot blocks, 8 warps"},
        {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1, "num_warps": 4,
         "num_stages": 3, "why": "16-slot blocks 256 columns wide: few programs"},
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1, "num_warps": 8,
         "num_stages": 3, "why": "64 x 256 tiles, ungrouped"},
    ],
}  # fmt: skip


@triton.autotune(configs=autotune_configs(LAUNCH_SET), key=["M"])
@triton.jit
def moe_matmul_kernel(
    a_ptr, b_ptr, c_ptr, sorted_token_ids_ptr, expert_ids_ptr, M, N, K, E,
    stride_am, stride_be, stride_bk, stride_bn, stride_cm,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr, TOP_K: tl.constexpr,
):  # fmt: skip
    padded = M * TOP_K + E * (BLOCK_SIZE_M - 1)  # sorted token slots: each expert's run filled to whole blocks
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(padded, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    in_group = GROUP_SIZE_M * num_pid_n
    first_m = (pid // in_group) * GROUP_SIZE_M
    group_m = min(num_pid_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m
    slots = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    tokens = tl.load(sorted_token_ids_ptr + slots)
    valid = tokens < M * TOP_K  # padding slots hold M * TOP_K
    expert = tl.load(expert_ids_ptr + pid_m)
    cols = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    ks = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (tokens[:, None] // TOP_K) * stride_am + ks[None, :]
    b_ptrs = b_ptr + expert * stride_be + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=valid[:, None] & (ks[None, :] < K - k * BLOCK_SIZE_K), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K - k * BLOCK_SIZE_K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + tokens[:, None] * stride_cm + cols[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=valid[:, None] & (cols[None, :] < N))


tritonscope_defaults = {
    "a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "sorted_token_ids_ptr": "*i32", "expert_ids_ptr": "*i32",
    "M": 256, "N": 14336, "K": 4096, "E": 8, "stride_am": 4096, "stride_be": 14336 * 4096, "stride_bk": 1,
    "stride_bn": 4096, "stride_cm": 14336, "TOP_K": 2,
}  # fmt: skip


def grid(meta):
    return grid_of(LAUNCH_SET, meta)


def make_inputs(size="M256", device="cuda"):
    """The tokens, the experts' weights and each token's TOP_K experts (drawn on the host, the same on
    every device, and kept there: the launcher sorts the slots for its config's block size)."""
    import torch
    from launch_set import dimensions, dtype_of

    dims, dtype = dimensions(LAUNCH_SET, size), dtype_of(LAUNCH_SET, size)
    a = torch.randn(dims["M"], dims["K"], device=device, dtype=dtype)
    b = torch.randn(dims["E"], dims["N"], dims["K"], device=device, dtype=dtype) / 8
    generator = torch.Generator().manual_seed(52)
    routed = torch.stack([torch.randperm(dims["E"], generator=generator)[: dims["TOP_K"]] for _ in range(dims["M"])])
    return a, b, routed


def sorted_slots(routed, experts: int, block: int):
    """(sorted_token_ids, expert_ids) as vLLM's moe_align_block_size makes them, on the host: slot
    t * TOP_K + j of every token routed to expert e, e by e, each expert's run padded with M * TOP_K
    to whole blocks, then padding blocks to the grid's M * TOP_K + E * (block - 1) slots."""
    import torch

    flat = routed.reshape(-1)
    pad = flat.numel()
    ids, owners = [], []
    for expert in range(experts):
        mine = (flat == expert).nonzero().reshape(-1).tolist()
        mine += [pad] * (-len(mine) % block)
        ids += mine
        owners += [expert] * (len(mine) // block)
    total = -(-(pad + experts * (block - 1)) // block) * block
    ids += [pad] * (total - len(ids))
    owners += [0] * (total // block - len(owners))
    return torch.tensor(ids, dtype=torch.int32), torch.tensor(owners, dtype=torch.int32)


def launcher(a, b, routed, **config) -> Launch:
    import torch

    (M, K), (E, N, _), top_k = a.shape, b.shape, routed.shape[1]
    ids, owners = (t.to(a.device) for t in sorted_slots(routed, E, config["BLOCK_SIZE_M"]))
    c = torch.zeros(M * top_k, N, device=a.device, dtype=a.dtype)
    scalars = {
        "M": M, "N": N, "K": K, "E": E, "stride_am": a.stride(0), "stride_be": b.stride(0), "stride_bk": b.stride(2),
        "stride_bn": b.stride(1), "stride_cm": c.stride(0), "TOP_K": top_k,
    }  # fmt: skip
    launch_grid = grid({**scalars, **config})
    run = lambda: moe_matmul_kernel.fn[launch_grid](a, b, c, ids, owners, **scalars, **config)  # noqa: E731
    return Launch(run, c, launch_grid, scalars)


def launch(a, b, routed, **config):
    return run_once(LAUNCH_SET, launcher, (a, b, routed), config)


def reference(a, b, routed):
    """Each slot's token times its expert's weights, expert by expert (fp32)."""
    import torch

    flat = routed.reshape(-1)
    tokens = a.float().repeat_interleave(routed.shape[1], dim=0)
    out = torch.zeros(flat.numel(), b.shape[1], device=a.device, dtype=torch.float32)
    for expert in range(b.shape[0]):
        mine = (flat == expert).nonzero().reshape(-1).to(a.device)
        out[mine] = tokens[mine] @ b[expert].float().T
    return out


def work(a, b, routed):
    from launch_set import declared_work

    (M, K), (E, N, _) = a.shape, b.shape
    sizes = {"M": M, "N": N, "K": K, "E": E, "TOP_K": routed.shape[1]}
    return declared_work(LAUNCH_SET, sizes, a.element_size())
