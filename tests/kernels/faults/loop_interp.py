"""A kernel that compiles, but never ends when run: its loop counter never moves."""

import triton
import triton.language as tl


@triton.jit
def spin_kernel(x_ptr, n):
    i = 0
    while i < n:
        i = i * 1
    tl.store(x_ptr, i)


tritonscope_defaults = {"n": 5}
