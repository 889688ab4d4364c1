"""A kernel whose heuristic never returns: whatever specializes it hangs (a stand-in for a slow compile)."""

import time

import triton
import triton.language as tl


def _forever(args):
    while True:
        time.sleep(0.05)


@triton.heuristics({"SPIN": _forever})
@triton.jit
def hang_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr, SPIN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n_elements)


tritonscope_defaults = {"n_elements": 4096, "BLOCK_SIZE": 256}
