"""A kernel file inside a package: it imports its neighbour relatively, as library kernels do."""

import triton
import triton.language as tl

from .utils import BLOCK


@triton.jit
def scale_kernel(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)


tritonscope_defaults = {"n": 4096, "BLOCK_SIZE": BLOCK}
