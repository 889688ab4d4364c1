"""`x * alpha + y` with alpha an integer argument (a learner's, h24b): the SASS converts it (I2F) on
the scoreboard of the loads of x and y."""

import triton
import triton.language as tl


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    out = x * alpha + y
    tl.store(out_ptr + offs, out, mask=mask)


tritonscope_defaults = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": 98432, "alpha": 3}
