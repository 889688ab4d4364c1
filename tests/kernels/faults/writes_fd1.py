"""A kernel file that writes to file descriptor 1 itself at import (below Python's sys.stdout)."""

import os

import triton
import triton.language as tl

os.write(1, b"raw bytes on fd 1 {not json\n")


@triton.jit
def fd_kernel(x_ptr, value):
    tl.store(x_ptr, value)


tritonscope_defaults = {"value": float("nan")}
