"""A persistent matmul: each program loops over tiles, a K loop inside; each tile's result is stored
through a layout conversion, once per tile (Triton's tutorial 09 without flatten)."""

import triton
import triton.language as tl


@triton.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, tiles, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    for tile in range(tl.program_id(0), tiles, tl.num_programs(0)):
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + tile * BM * K + offs_m[:, None] * K + (k + offs_k)[None, :])
            b = tl.load(b_ptr + (k + offs_k)[:, None] * BN + offs_n[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + tile * BM * BN + offs_m[:, None] * BN + offs_n[None, :], acc.to(tl.float16))
