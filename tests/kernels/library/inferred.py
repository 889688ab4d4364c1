"""A scalar whose type is not given: eps only ever meets floats (`tl.rsqrt(var + eps)`)."""

import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr = 1024):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n_cols
    x = tl.load(x_ptr + row * n_cols + offsets, mask=mask, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)
    tl.store(out_ptr + row * n_cols + offsets, x * rstd, mask=mask)
