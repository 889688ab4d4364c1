"""Histograms whose bins are clamped rather than taken modulo the bin count: of integers
(`min(max(x, 0), N_BINS - 1)`) and of floats scaled to bins (`((x - lo) * scale).to(tl.int32)`,
clamped the same way). Either way the atomics share N_BINS addresses, as `x % N_BINS` does."""

import triton
import triton.language as tl


@triton.jit
def clamped_kernel(x_ptr, bins_ptr, n, N_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    tl.atomic_add(bins_ptr + tl.minimum(tl.maximum(x, 0), N_BINS - 1), 1, mask=mask, sem="relaxed")


@triton.jit
def float_kernel(x_ptr, bins_ptr, n, num_bins, lo, hi, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    bin = ((x - lo) * (num_bins / (hi - lo))).to(tl.int32)
    tl.atomic_add(bins_ptr + tl.minimum(tl.maximum(bin, 0), num_bins - 1), 1, mask=mask, sem="relaxed")


tritonscope_defaults = {
    "x_ptr": "*i32", "bins_ptr": "*i32", "n": 2**25, "N_BINS": 256, "BLOCK": 1024,
    "num_bins": 256, "lo": 0.0, "hi": 1.0,
}  # fmt: skip
