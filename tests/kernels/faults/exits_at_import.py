"""A kernel file that ends the process at import."""

import os

import triton
import triton.language as tl

os._exit(7)


@triton.jit
def gone_kernel(x_ptr):
    tl.store(x_ptr, 1.0)
