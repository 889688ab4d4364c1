"""A library kernel file whose library needs a module that is not installed (as vllm's need zmq)."""

import triton
import triton.language as tl

from .transport import send  # noqa: F401


@triton.jit
def copy_kernel(x_ptr):
    tl.store(x_ptr, 1.0)
