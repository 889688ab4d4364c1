"""A histogram: each element's bin from its value, counted by an atomic. Its atomic's addresses are
a tensor of 64-bit pointers that TTGIR moves between layouts through shared memory."""

import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + (v & (NUM_BINS - 1)), 1, mask=mask)


tritonscope_defaults = {"x_ptr": "*i32", "bins_ptr": "*i32", "n": 33554432, "NUM_BINS": 256, "BLOCK": 1024}
