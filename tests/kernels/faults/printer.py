"""A kernel file that prints to stdout when imported (as many scripts do)."""

import triton
import triton.language as tl

print("hello from the kernel file")


@triton.jit
def chatty_kernel(x_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


tritonscope_defaults = {"n_elements": 4096, "BLOCK_SIZE": 1024}


def grid(meta):
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)
