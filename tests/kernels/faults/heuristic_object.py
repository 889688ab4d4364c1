"""A heuristic that returns something no constexpr can be."""

import triton
import triton.language as tl


@triton.heuristics({"BLOCK_SIZE": lambda args: object()})
@triton.jit
def odd_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n_elements)


tritonscope_defaults = {"n_elements": 4096}
