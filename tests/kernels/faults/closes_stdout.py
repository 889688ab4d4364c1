"""A kernel file that closes standard output at import (sys.stdout and file descriptor 1)."""

import os
import sys

import triton
import triton.language as tl

sys.stdout.close()
os.close(1)


@triton.jit
def closed_kernel(x_ptr, value):
    tl.store(x_ptr, value)


tritonscope_defaults = {"value": float("inf")}
