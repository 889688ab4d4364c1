"""A kernel file that asks torch for the current GPU while it is imported."""

import torch
import triton
import triton.language as tl

DEVICE = torch.cuda.current_device()


@triton.jit
def fill_kernel(out_ptr, BLOCK: tl.constexpr = 128):
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)
