"""A file whose missing extension module has 'cuda' in its name: still a missing module, not a GPU."""

import triton
import triton.language as tl

from .cuda_utils import launcher  # noqa: F401 - an extension module that was never built


@triton.jit
def ext_kernel(x_ptr):
    tl.store(x_ptr, 1.0)
