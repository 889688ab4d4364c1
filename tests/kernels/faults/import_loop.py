"""A kernel file that never finishes importing."""

import time

import triton
import triton.language as tl

while True:
    time.sleep(0.05)


@triton.jit
def never_kernel(x_ptr):
    tl.store(x_ptr, 1.0)
