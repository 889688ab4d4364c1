"""A tile loaded through two strides that no launch gave (a first run of a library kernel): Triton
lays it out as if no dimension were contiguous, and each thread loads one element."""

import triton
import triton.language as tl


@triton.jit
def tile_copy(a_ptr, out_ptr, stride_am, stride_ak, BM: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_k = tl.arange(0, BK)
    a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
    tl.store(out_ptr + offs_m[:, None] * BK + offs_k[None, :], a)
