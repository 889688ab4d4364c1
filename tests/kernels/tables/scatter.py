"""Atomics that share their addresses to different degrees: one counter, histograms of float weights
and of maxima into N_BINS bins, and SPLIT partial rows added into one (a split-K reduction's shape).
benchmarks/atomics.py times them against the launch estimate's `atomics` limit.
"""

import triton
import triton.language as tl


@triton.jit
def count_kernel(x_ptr, count_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    tl.atomic_add(count_ptr, tl.sum((x > 0).to(tl.int32)))


@triton.jit
def weighted_hist_kernel(x_ptr, w_ptr, bins_ptr, n, N_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    w = tl.load(w_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(bins_ptr + (x & (N_BINS - 1)), w, mask=mask)


@triton.jit
def max_hist_kernel(x_ptr, bins_ptr, n, N_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    tl.atomic_max(bins_ptr + x % N_BINS, x, mask=mask)


@triton.jit
def accumulate_kernel(src_ptr, dst_ptr, n_cols, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid % SPLIT
    col = (pid // SPLIT) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(src_ptr + row * n_cols + col)
    tl.atomic_add(dst_ptr + col, v)


tritonscope_defaults = {
    "x_ptr": "*i32", "w_ptr": "*fp32", "bins_ptr": "*fp32", "count_ptr": "*i32", "src_ptr": "*fp32",
    "dst_ptr": "*fp32", "n": 2**25, "n_cols": 2**22, "N_BINS": 1024, "SPLIT": 8, "BLOCK": 1024,
}
