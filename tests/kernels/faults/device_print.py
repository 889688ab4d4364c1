"""A string literal that looks like a location record."""

import triton
import triton.language as tl


@triton.jit
def print_kernel(x_ptr):
    x = tl.load(x_ptr)
    tl.device_print("value loc(x) = ", x)
