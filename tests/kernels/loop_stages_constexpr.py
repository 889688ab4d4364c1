"""A matmul whose K loop sets its own pipeline depth from a constexpr, as Triton's block-scaled matmul
tutorial does (`tl.range(..., num_stages=NUM_STAGES)`): the launch's num_stages does not reach it."""

import triton
import triton.language as tl


@triton.jit
def staged_matmul(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k * BK + offs_k)[None, :])
        b = tl.load(b_ptr + (k * BK + offs_k)[:, None] * BN + offs_n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * BN + offs_n[None, :], acc)
