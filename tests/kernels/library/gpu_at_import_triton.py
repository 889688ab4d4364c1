"""A kernel file that asks Triton's driver for the current GPU while it is imported."""

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_current_device()


@triton.jit
def fill_kernel(out_ptr, BLOCK: tl.constexpr = 128):
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)
