"""A kernel that converts its float argument (liger-kernel's rms_norm does `eps.to(...)`): a launch passes
it as an fp32 scalar, which `grid` must do too."""

import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, eps, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    e = eps.to(tl.float32)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * e, mask=offs < n)
