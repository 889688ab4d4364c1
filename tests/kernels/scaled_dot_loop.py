"""A K loop whose tl.dot's result is scaled by a per-block scale loaded in the loop (DeepSeek-V3's fp8
GEMM does this): Triton pipelines the tiles the dot reads, not the scales."""

import triton
import triton.language as tl

tritonscope_defaults = {"a_ptr": "*fp16", "b_ptr": "*fp16", "s_ptr": "*fp32", "c_ptr": "*fp32", "K": 4096}


@triton.jit
def scaled_dot(a_ptr, b_ptr, s_ptr, c_ptr, K, BM: tl.constexpr = 64, BN: tl.constexpr = 64, BK: tl.constexpr = 64):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        scale = tl.load(s_ptr + (k // BK) * BM + rm)
        acc += tl.dot(a, b) * scale[:, None]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
