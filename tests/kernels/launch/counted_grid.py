"""A copy whose grid hook writes a line to $GRID_CALLS at each call: explain asks it once
(tests/test_launch_time.py)."""

import os

import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


tritonscope_defaults = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": 1 << 26, "BLOCK": 1024}


def grid(meta):
    with open(os.environ["GRID_CALLS"], "a") as calls:
        calls.write(f"{meta['n']}\n")
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)
