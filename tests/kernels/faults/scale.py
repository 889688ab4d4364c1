"""A kernel with a float constexpr."""

import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, output_ptr, n_elements, SCALE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * SCALE, mask=mask)


tritonscope_defaults = {"n_elements": 4096, "BLOCK_SIZE": 1024, "SCALE": 2.0}
