"""A mixture-of-experts matmul as vLLM's fused MoE launches one (written for tritonscope's tests, not
copied from vLLM): the tokens' rows sorted by the expert each is routed to, each expert's run padded
to whole blocks of BLOCK_SIZE_M, each program one block of sorted tokens times one column block of its
expert's weights, in grouped order. Its autotune configs are vLLM's config keys (BLOCK_SIZE_M/N/K,
GROUP_SIZE_M, num_warps, num_stages), tuned per batch size M: `fit --rank --vary M=... --emit-config
vllm` writes the best per M."""

import triton
import triton.language as tl

CONFIGS = [
    triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": g}, num_warps=w, num_stages=s
    )
    for bm, bn, bk, g, w, s in [
        (16, 64, 128, 1, 4, 4), (16, 128, 128, 1, 4, 3), (32, 64, 128, 8, 4, 4), (64, 64, 64, 8, 4, 4),
        (64, 128, 64, 8, 4, 3), (128, 128, 64, 16, 8, 3),
    ]
]  # fmt: skip


@triton.autotune(configs=CONFIGS, key=["M"])
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
        b = tl.load(b_ptrs, mask=ks[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + tokens[:, None] * stride_cm + cols[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=valid[:, None] & (cols[None, :] < N))


# A Mixtral-like layer: 8 experts of 14336 x 4096, each token routed to 2.
tritonscope_defaults = {
    "a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "sorted_token_ids_ptr": "*i32", "expert_ids_ptr": "*i32",
    "M": 64, "N": 14336, "K": 4096, "E": 8, "stride_am": 4096, "stride_be": 14336 * 4096, "stride_bk": 1,
    "stride_bn": 4096, "stride_cm": 14336, "TOP_K": 2,
}  # fmt: skip


def grid(meta):
    padded = meta["M"] * meta["TOP_K"] + meta["E"] * (meta["BLOCK_SIZE_M"] - 1)
    return (triton.cdiv(padded, meta["BLOCK_SIZE_M"]) * triton.cdiv(meta["N"], meta["BLOCK_SIZE_N"]),)
