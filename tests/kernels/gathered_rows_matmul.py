"""A matmul whose A rows are gathered at indices loaded from memory (vLLM's fused MoE gathers its
token rows so), B a plain tile: Hopper's TMA copies B's tile, not A's rows."""

import triton
import triton.language as tl


@triton.jit
def gathered_rows_matmul(a_ptr, b_ptr, c_ptr, idx_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    rows = tl.load(idx_ptr + offs_m)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rows[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * BN + offs_n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * BN + offs_n[None, :], acc)
