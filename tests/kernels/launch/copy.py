"""A pure copy: every program moves BLOCK elements from x to y, nothing else (tests/test_launch_time.py)."""

import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


tritonscope_defaults = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": 1 << 26, "BLOCK": 1024}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)
